package io.fencegate.issuer;

/**
 * A grant of a lock, carrying its fencing token: exclusive ({@link LeaseMode#WRITE}, the default),
 * shared ({@link LeaseMode#READ}), or a semaphore's permit (an exclusive lease on the lock of one of
 * its slots, {@link Semaphores}).
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
 * @param mode        {@link LeaseMode#WRITE} (exclusive) or {@link LeaseMode#READ} (shared with other
 *                    read leases); a permit is a write lease on its slot's lock
 * @param slot        for a semaphore's permit, the slot it took ({@code lock} is that slot's lock,
 *                    {@link Semaphores#slotLock}); {@link #NO_SLOT} for any other lease
 */
public record Lease(String lock, String leaseId, long token, long expiresAt, long startedAtNanos, LeaseMode mode, int slot) {

    /** {@link #slot} of a lease that is not a semaphore's permit. */
    public static final int NO_SLOT = -1;

    /** {@link #startedAtNanos} of a lease whose start this process did not see. */
    public static final long UNKNOWN_START = Long.MIN_VALUE;

    public Lease {
        if (token <= 0) {
            throw new IllegalArgumentException("token must be positive, was " + token);
        }
        java.util.Objects.requireNonNull(mode, "mode");
        if (slot < NO_SLOT || (slot != NO_SLOT && mode != LeaseMode.WRITE)) {
            throw new IllegalArgumentException("a permit's slot is 0 or more on a write lease, was " + slot + " (" + mode + ")");
        }
    }

    /** An exclusive (write) lease, not a permit. */
    public Lease(String lock, String leaseId, long token, long expiresAt, long startedAtNanos) {
        this(lock, leaseId, token, expiresAt, startedAtNanos, LeaseMode.WRITE, NO_SLOT);
    }

    /** An exclusive lease whose start this process did not see ({@link #UNKNOWN_START}). */
    public Lease(String lock, String leaseId, long token, long expiresAt) {
        this(lock, leaseId, token, expiresAt, UNKNOWN_START);
    }

    /** The same lease with a new expiry, as a renew answers it. */
    public Lease withExpiresAt(long newExpiresAt) {
        return new Lease(lock, leaseId, token, newExpiresAt, startedAtNanos, mode, slot);
    }

    /** The same grant, as the given mode and slot say (a backend's answer for a read lease or a permit). */
    public Lease as(LeaseMode newMode, int newSlot) {
        return new Lease(lock, leaseId, token, expiresAt, startedAtNanos, newMode, newSlot);
    }

    /** Whether this lease is a semaphore's permit. */
    public boolean isPermit() {
        return slot != NO_SLOT;
    }

    /** Whether {@link #startedAtNanos} is known. */
    public boolean startKnown() {
        return startedAtNanos != UNKNOWN_START;
    }

    /** Equal grants: same lock, id, token, expiry, mode and slot ({@link #startedAtNanos} is local bookkeeping). */
    @Override
    public boolean equals(Object other) {
        return other instanceof Lease l && l.token == token && l.expiresAt == expiresAt
                && l.lock.equals(lock) && l.leaseId.equals(leaseId) && l.mode == mode && l.slot == slot;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(lock, leaseId, token, expiresAt, mode, slot);
    }
}
