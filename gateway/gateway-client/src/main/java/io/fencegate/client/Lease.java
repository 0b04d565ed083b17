package io.fencegate.client;

import java.time.Instant;
import java.util.Objects;

/**
 * A granted lease: exclusive use of {@code lock}, proven to stores by {@code token}.
 *
 * <p>{@code startedAtNanos} is this process's {@link System#nanoTime()} taken before the acquire
 * was sent ({@link #UNKNOWN_START} for a lease built by hand): {@link LeaseKeepAlive}'s first
 * deadline is that moment plus the ttl, because the gateway cannot have granted the lease earlier,
 * and the monotonic clock neither steps nor stops while the process is paused. It is local to this
 * process, not part of the gateway's answer, so {@code equals} ignores it.
 */
public record Lease(String lock, String leaseId, long token, Instant expiresAt, long startedAtNanos) {

    /** {@link #startedAtNanos} of a lease whose acquire this process did not send. */
    public static final long UNKNOWN_START = Long.MIN_VALUE;

    /** A lease whose acquire this process did not send ({@link #UNKNOWN_START}). */
    public Lease(String lock, String leaseId, long token, Instant expiresAt) {
        this(lock, leaseId, token, expiresAt, UNKNOWN_START);
    }

    /** Whether {@link #startedAtNanos} is known. */
    public boolean startKnown() {
        return startedAtNanos != UNKNOWN_START;
    }

    /** Equal grants: same lock, id, token and expiry. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Lease l && l.token == token && l.lock.equals(lock) && l.leaseId.equals(leaseId)
                && Objects.equals(l.expiresAt, expiresAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(lock, leaseId, token, expiresAt);
    }
}
