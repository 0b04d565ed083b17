package io.fencegate.gateway.mutants;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseListener;
import io.fencegate.issuer.LeasePage;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * An issuer that hands every call to a real one, default methods included. Unmutated, it is the
 * control; a mutant overrides the calls whose guarantee it switches off.
 */
class ForwardingLeaseIssuer implements LeaseIssuer {
    protected final LeaseIssuer real;

    ForwardingLeaseIssuer(LeaseIssuer real) {
        this.real = real;
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait) {
        return real.acquire(lock, ttl, wait);
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait, Duration lockDelay) {
        return real.acquire(lock, ttl, wait, lockDelay);
    }

    @Override
    public CompletionStage<Optional<Lease>> renew(String leaseId) {
        return real.renew(leaseId);
    }

    @Override
    public CompletionStage<Boolean> release(String leaseId) {
        return real.release(leaseId);
    }

    @Override
    public CompletionStage<Boolean> wasGranted(String lock, long token) {
        return real.wasGranted(lock, token);
    }

    @Override
    public CompletionStage<Optional<Lease>> find(String leaseId) {
        return real.find(leaseId);
    }

    /** Forwarded too: the gateway authorizes renew and release by it, and falls back to {@link #find} without it. */
    @Override
    public Optional<String> lockOf(String leaseId) {
        return real.lockOf(leaseId);
    }

    @Override
    public Optional<String> failingClosed() {
        return real.failingClosed();
    }

    @Override
    public CompletionStage<Boolean> wasReleased(Lease lease) {
        return real.wasReleased(lease);
    }

    @Override
    public CompletionStage<LeasePage> list(String lockPrefix, String cursor, int limit) {
        return real.list(lockPrefix, cursor, limit);
    }

    @Override
    public void addListener(LeaseListener listener) {
        real.addListener(listener);
    }

    /** The real issuer belongs to the deployment, which closes it. */
    @Override
    public void close() {}
}
