package io.fencegate.gateway.it;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseListener;
import io.fencegate.issuer.LeasePage;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/** A real issuer that counts the lease reads ({@link #find}) the gateway makes of it. */
final class ReadCountingIssuer implements LeaseIssuer {
    private final LeaseIssuer issuer;
    private final AtomicLong finds = new AtomicLong();

    ReadCountingIssuer(LeaseIssuer issuer) {
        this.issuer = issuer;
    }

    long finds() {
        return finds.get();
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait) {
        return issuer.acquire(lock, ttl, wait);
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait, Duration lockDelay) {
        return issuer.acquire(lock, ttl, wait, lockDelay);
    }

    @Override
    public CompletionStage<Optional<Lease>> renew(String leaseId) {
        return issuer.renew(leaseId);
    }

    @Override
    public CompletionStage<Boolean> release(String leaseId) {
        return issuer.release(leaseId);
    }

    @Override
    public CompletionStage<Boolean> wasGranted(String lock, long token) {
        return issuer.wasGranted(lock, token);
    }

    @Override
    public Optional<String> lockOf(String leaseId) {
        return issuer.lockOf(leaseId);
    }

    @Override
    public CompletionStage<Optional<Lease>> find(String leaseId) {
        finds.incrementAndGet();
        return issuer.find(leaseId);
    }

    @Override
    public CompletionStage<Boolean> wasReleased(Lease lease) {
        return issuer.wasReleased(lease);
    }

    @Override
    public CompletionStage<LeasePage> list(String lockPrefix, String cursor, int limit) {
        return issuer.list(lockPrefix, cursor, limit);
    }

    @Override
    public void addListener(LeaseListener listener) {
        issuer.addListener(listener);
    }

    @Override
    public void close() {
        issuer.close();
    }
}
