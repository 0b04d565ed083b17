package io.fencegate.gateway.mutants;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Mutant "let an expired lease renew": the real issuer ends a lease when its ttl passes, but this
 * one keeps answering its holder as if it had not. A renew of a lease the real issuer has ended
 * answers it extended (now + its ttl), and a release of it answers that this call ended it (204,
 * not 410), while the lock has meanwhile gone to the next holder.
 */
final class ExpiredRenewIssuer extends ForwardingLeaseIssuer {
    private record Granted(Lease lease, Duration ttl) {}

    private final Map<String, Granted> granted = new ConcurrentHashMap<>();

    ExpiredRenewIssuer(LeaseIssuer real) {
        super(real);
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait) {
        return real.acquire(lock, ttl, wait).thenApply(lease -> remember(lease, ttl));
    }

    @Override
    public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait, Duration lockDelay) {
        return real.acquire(lock, ttl, wait, lockDelay).thenApply(lease -> remember(lease, ttl));
    }

    private Optional<Lease> remember(Optional<Lease> lease, Duration ttl) {
        lease.ifPresent(l -> granted.put(l.leaseId(), new Granted(l, ttl)));
        return lease;
    }

    @Override
    public CompletionStage<Optional<Lease>> renew(String leaseId) {
        return real.renew(leaseId).thenApply(renewed -> {
            Granted g = granted.get(leaseId);
            return renewed.isPresent() || g == null ? renewed
                    : Optional.of(g.lease().withExpiresAt(System.currentTimeMillis() + g.ttl().toMillis()));
        });
    }

    @Override
    public CompletionStage<Boolean> release(String leaseId) {
        return real.release(leaseId).thenApply(ended -> granted.remove(leaseId) != null || ended);
    }
}
