package io.fencegate.gateway.mutants;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Mutant "grant twice on one lock, once in N": every {@value #EVERY}th acquire is granted on a twin
 * lock the real issuer keeps beside the asked one, free while the real lock is held, and answered
 * as a lease on the asked lock. Its token comes from the real issuer (ZooKeeper's zxid: unique and
 * growing), and {@link #wasGranted} vouches for it, so nothing but the overlap gives it away.
 */
final class TwinGrantIssuer extends ForwardingLeaseIssuer {
    static final int EVERY = 5;

    private final AtomicLong acquires = new AtomicLong();
    private final Set<String> twinGrants = ConcurrentHashMap.newKeySet();

    TwinGrantIssuer(LeaseIssuer real) {
        super(real);
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait) {
        return acquire(lock, ttl, wait, Duration.ZERO);
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait, Duration lockDelay) {
        if (acquires.incrementAndGet() % EVERY != 0) {
            return real.acquire(lock, ttl, wait, lockDelay);
        }
        return real.acquire(lock + "/twin", ttl, wait, lockDelay).thenApply(twin -> twin.map(t -> {
            twinGrants.add(lock + "\n" + t.token());
            return new Lease(lock, t.leaseId(), t.token(), t.expiresAt(), t.startedAtNanos());
        }));
    }

    @Override
    public CompletionStage<Boolean> wasGranted(String lock, long token) {
        return twinGrants.contains(lock + "\n" + token) ? CompletableFuture.completedFuture(true) : real.wasGranted(lock, token);
    }
}
