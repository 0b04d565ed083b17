package io.fencegate.store;

/** How a store compares a write's token with the item's. */
public enum GuardRule {
    /** {@code fence <= t and token < t}: one write per token, so a retried write is recognisably "already applied". */
    STRICT,
    /** {@code fence <= t}: a lease may write the same item many times. */
    SAME_LEASE;

    /** Whether a write with {@code token} may apply to an item holding {@code current} and {@code fence}. */
    public boolean admits(long token, long current, long fence) {
        return fence <= token && (this == SAME_LEASE || current < token);
    }
}
