package io.fencegate.client;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Keeps a {@link LeaseGroup} alive as one lease: renews it by its group id at ttl/3, and reports
 * its loss exactly as {@link LeaseKeepAlive} reports a lease's ({@link LeaseLoss}): the gateway
 * answers 410 as soon as any member is gone, so losing one lock loses the group. Made by
 * {@link FencegateClient#withLeases}; {@link #close()} stops renewing and releases every member.
 */
public final class LeaseGroupKeepAlive implements AutoCloseable {
    private final LeaseGroup group;
    /** Renews the group id; its lease stands for the whole group and never leaves this class. */
    private final LeaseKeepAlive keepAlive;

    LeaseGroupKeepAlive(LeaseGroup group, LeaseKeepAlive keepAlive) {
        this.group = group;
        this.keepAlive = keepAlive;
    }

    public LeaseGroup group() {
        return group;
    }

    /** The token of {@code lock}'s lease: send it with writes guarded by that lock. */
    public long token(String lock) {
        return group.token(lock);
    }

    /** As {@link LeaseKeepAlive#held()}, for the whole group. */
    public boolean held() {
        return keepAlive.held();
    }

    /** As {@link LeaseKeepAlive#remaining()}. */
    public Duration remaining() {
        return keepAlive.remaining();
    }

    /** Completes, once, with the reason when the group is lost; never if it is closed first. */
    public CompletionStage<LeaseLoss> lost() {
        return keepAlive.lost();
    }

    /** The last renewal error (transport, timeout, 5xx), if the last renewal failed. */
    public Optional<Throwable> lastError() {
        return keepAlive.lastError();
    }

    /** Stops renewing and releases every member: true if each was still live, as {@link LeaseKeepAlive#release()}. */
    public boolean release() {
        return keepAlive.release();
    }

    @Override
    public void close() {
        release();
    }
}
