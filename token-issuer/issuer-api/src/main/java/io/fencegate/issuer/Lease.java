package io.fencegate.issuer;

/**
 * An exclusive grant of a lock, carrying its fencing token.
 *
 * @param lock        the lock's name, as the caller gave it
 * @param leaseId     opaque id naming this grant for renew and release; unguessable
 * @param token       the fencing token: positive, and strictly larger than every token granted
 *                    for this lock before, forever
 * @param expiresAt   epoch milliseconds after which the issuer ends the lease unless renewed
 * @param startedAtNanos this process's {@link System#nanoTime()} taken before the request that
 *                    started the lease's ttl was sent (the acquire's grant), or {@link #UNKNOWN_START}
 *                    for a lease not granted here (a renew's or a lookup's answer). Why: a holder's
 *                    deadline is that moment plus the ttl on the monotonic clock, which a paused
 *                    process or a stepped wall clock cannot stretch ({@link LeaseWatchdog}). Local to
 *                    this process, so not part of the grant's identity: {@code equals} ignores it.
 */
public record Lease(String lock, String leaseId, long token, long expiresAt, long startedAtNanos) {

    /** {@link #startedAtNanos} of a lease whose start this process did not see. */
    public static final long UNKNOWN_START = Long.MIN_VALUE;

    public Lease {
        if (token <= 0) {
            throw new IllegalArgumentException("token must be positive, was " + token);
        }
    }

    /** A lease whose start this process did not see ({@link #UNKNOWN_START}). */
    public Lease(String lock, String leaseId, long token, long expiresAt) {
        this(lock, leaseId, token, expiresAt, UNKNOWN_START);
    }

    /** The same lease with a new expiry, as a renew answers it. */
    public Lease withExpiresAt(long newExpiresAt) {
        return new Lease(lock, leaseId, token, newExpiresAt, startedAtNanos);
    }

    /** Whether {@link #startedAtNanos} is known. */
    public boolean startKnown() {
        return startedAtNanos != UNKNOWN_START;
    }

    /** Equal grants: same lock, id, token and expiry ({@link #startedAtNanos} is local bookkeeping). */
    @Override
    public boolean equals(Object other) {
        return other instanceof Lease l && l.token == token && l.expiresAt == expiresAt
                && l.lock.equals(lock) && l.leaseId.equals(leaseId);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(lock, leaseId, token, expiresAt);
    }
}
