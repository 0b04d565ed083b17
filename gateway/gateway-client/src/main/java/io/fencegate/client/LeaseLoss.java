package io.fencegate.client;

/** Why a {@link LeaseKeepAlive} gave its lease up. Told once, to {@link LeaseLostListener#onLost}. */
public enum LeaseLoss {
    /** The gateway answered 410 to a renewal: the lease expired there, was released, or its session ended. */
    GONE,
    /**
     * The lease's ttl passed, by this JVM's monotonic clock, since the last renewal the gateway
     * confirmed: renewals failed (gateway unreachable, 5xx, timeouts) or this process was paused.
     * Measured from when that renewal was sent, so it is told no later than the gateway ends the lease.
     */
    EXPIRED,
    /** The gateway refused a renewal with an error that retrying cannot cure (401, 403, 400). */
    RENEW_REFUSED
}
