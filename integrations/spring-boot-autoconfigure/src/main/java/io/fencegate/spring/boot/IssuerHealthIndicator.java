package io.fencegate.spring.boot;

import io.fencegate.issuer.LeaseIssuer;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * UP when the issuer's backend answers a one-lease listing within 3 s. The listing reads the
 * backend (ZooKeeper, Redis) without taking or changing any lease.
 */
final class IssuerHealthIndicator extends AbstractHealthIndicator {
    private final LeaseIssuer issuer;

    IssuerHealthIndicator(LeaseIssuer issuer) {
        super("fencegate issuer health check failed");
        this.issuer = issuer;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        LeaseIssuer backend = issuer instanceof MeteredLeaseIssuer metered ? metered.delegate() : issuer;
        issuer.list("", null, 1).toCompletableFuture().get(3, TimeUnit.SECONDS);
        builder.up().withDetail("issuer", backend.getClass().getSimpleName());
    }
}
