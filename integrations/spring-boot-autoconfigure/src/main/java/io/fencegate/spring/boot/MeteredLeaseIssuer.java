package io.fencegate.spring.boot;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseListener;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LeasePage;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link LeaseIssuer} that records {@link LeaseMeters}; everything else passes through. The
 * grant time of each lease granted here is kept until its release or loss (one map entry per
 * live lease).
 */
final class MeteredLeaseIssuer implements LeaseIssuer {
    private record Grant(String lock, long grantedAt) { }

    private final LeaseIssuer delegate;
    private final LeaseMeters meters;
    private final ConcurrentMap<String, Grant> live = new ConcurrentHashMap<>();

    MeteredLeaseIssuer(LeaseIssuer delegate, LeaseMeters meters) {
        this.delegate = delegate;
        this.meters = meters;
        delegate.addListener((lease, reason) -> {
            if (live.remove(lease.leaseId()) != null) { // once per lease: a failed renew may have counted it
                meters.lost(lease.lock(), reason);
            }
        });
    }

    /** The issuer this one measures (for a backend-specific API). */
    LeaseIssuer delegate() {
        return delegate;
    }

    @Override
    public Optional<String> failingClosed() {
        return delegate.failingClosed();
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait) {
        return measured(lock, delegate.acquire(lock, ttl, wait));
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait, Duration lockDelay) {
        return measured(lock, delegate.acquire(lock, ttl, wait, lockDelay));
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, LeaseMode mode, Duration ttl, Duration wait, Duration lockDelay) {
        return measured(lock, delegate.acquire(lock, mode, ttl, wait, lockDelay));
    }

    /** Measured under the semaphore's name, as a lock's acquires are under the lock's. */
    @Override
    public CompletionStage<Optional<Lease>> acquirePermit(String semaphore, int permits, Duration ttl, Duration wait) {
        return measured(semaphore, delegate.acquirePermit(semaphore, permits, ttl, wait));
    }

    @Override
    public CompletionStage<Optional<Lease>> acquirePermit(String semaphore, int permits, Duration ttl, Duration wait, Duration lockDelay) {
        return measured(semaphore, delegate.acquirePermit(semaphore, permits, ttl, wait, lockDelay));
    }

    @Override
    public CompletionStage<Optional<LeaseMode>> grantedMode(String lock, long token) {
        return delegate.grantedMode(lock, token);
    }

    private CompletionStage<Optional<Lease>> measured(String lock, CompletionStage<Optional<Lease>> acquire) {
        long start = System.nanoTime();
        return acquire.whenComplete((lease, error) -> {
            long now = System.nanoTime();
            meters.acquired(lock, error != null ? "failed" : lease.isPresent() ? "acquired" : "busy", now - start);
            if (lease != null && lease.isPresent()) {
                live.put(lease.get().leaseId(), new Grant(lock, now));
            }
        });
    }

    @Override
    public CompletionStage<Optional<Lease>> renew(String leaseId) {
        return delegate.renew(leaseId).whenComplete((renewed, error) -> {
            if (error == null && renewed.isEmpty()) {
                Grant grant = live.remove(leaseId);
                if (grant != null) {
                    meters.lost(grant.lock(), "renew_failed");
                }
            }
        });
    }

    @Override
    public CompletionStage<Boolean> release(String leaseId) {
        return delegate.release(leaseId).whenComplete((released, error) -> {
            Grant grant = live.remove(leaseId);
            if (grant != null && Boolean.TRUE.equals(released)) {
                meters.held(grant.lock(), System.nanoTime() - grant.grantedAt());
            }
        });
    }

    @Override
    public CompletionStage<Boolean> wasGranted(String lock, long token) {
        return delegate.wasGranted(lock, token);
    }

    @Override
    public Optional<String> lockOf(String leaseId) {
        return delegate.lockOf(leaseId);
    }

    @Override
    public CompletionStage<Optional<Lease>> find(String leaseId) {
        return delegate.find(leaseId);
    }

    @Override
    public CompletionStage<Boolean> wasReleased(Lease lease) {
        return delegate.wasReleased(lease);
    }

    @Override
    public CompletionStage<LeasePage> list(String lockPrefix, String cursor, int limit) {
        return delegate.list(lockPrefix, cursor, limit);
    }

    @Override
    public void addListener(LeaseListener listener) {
        delegate.addListener(listener);
    }

    @Override
    public void close() {
        live.clear();
        delegate.close();
    }
}
