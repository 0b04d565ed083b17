package io.fencegate.client;

/**
 * Told once when a kept-alive lease is lost. Runs on the keep-alive's timer thread, which every
 * keep-alive shares: return quickly (set a flag, interrupt a worker, complete a future).
 */
@FunctionalInterface
public interface LeaseLostListener {
    void onLost(Lease lease, LeaseLoss reason);
}
