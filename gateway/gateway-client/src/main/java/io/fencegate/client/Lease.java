package io.fencegate.client;

import java.time.Instant;
import java.util.Objects;

/**
 * A granted lease: use of {@code lock} in {@code mode}, proven to stores by {@code token}. A
 * {@link LeaseMode#WRITE} lease (the default) is exclusive and its token writes; a
 * {@link LeaseMode#READ} lease is shared with other read leases and its token only makes fenced
 * reads. A fenced semaphore's permit ({@link FencegateClient#acquirePermit}) is a write lease on the
 * lock of the slot it took: {@code lock} is {@code {semaphore}/{slot}}, {@code slot} that slot.
 *
 * <p>{@code startedAtNanos} is this process's {@link System#nanoTime()} taken before the acquire
 * was sent ({@link #UNKNOWN_START} for a lease built by hand): {@link LeaseKeepAlive}'s first
 * deadline is that moment plus the ttl, because the gateway cannot have granted the lease earlier,
 * and the monotonic clock neither steps nor stops while the process is paused. It is local to this
 * process, not part of the gateway's answer, so {@code equals} ignores it.
 *
 * @param slot a permit's slot, {@code 0..permits-1}; {@link #NO_SLOT} for any other lease
 */
public record Lease(String lock, String leaseId, long token, Instant expiresAt, long startedAtNanos, LeaseMode mode, int slot) {

    /** {@link #startedAtNanos} of a lease whose acquire this process did not send. */
    public static final long UNKNOWN_START = Long.MIN_VALUE;

    /** {@link #slot} of a lease that is not a semaphore's permit. */
    public static final int NO_SLOT = -1;

    public Lease {
        Objects.requireNonNull(mode, "mode");
    }

    /** A write lease, not a permit. */
    public Lease(String lock, String leaseId, long token, Instant expiresAt, long startedAtNanos) {
        this(lock, leaseId, token, expiresAt, startedAtNanos, LeaseMode.WRITE, NO_SLOT);
    }

    /** A write lease whose acquire this process did not send ({@link #UNKNOWN_START}). */
    public Lease(String lock, String leaseId, long token, Instant expiresAt) {
        this(lock, leaseId, token, expiresAt, UNKNOWN_START);
    }

    /** Whether {@link #startedAtNanos} is known. */
    public boolean startKnown() {
        return startedAtNanos != UNKNOWN_START;
    }

    /** Whether this lease is a semaphore's permit. */
    public boolean isPermit() {
        return slot != NO_SLOT;
    }

    /** Equal grants: same lock, id, token, expiry, mode and slot. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Lease l && l.token == token && l.lock.equals(lock) && l.leaseId.equals(leaseId)
                && Objects.equals(l.expiresAt, expiresAt) && l.mode == mode && l.slot == slot;
    }

    @Override
    public int hashCode() {
        return Objects.hash(lock, leaseId, token, expiresAt, mode, slot);
    }
}
