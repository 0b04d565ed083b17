package io.fencegate.issuer.sql;

import io.fencegate.issuer.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A "gateway" for {@link SkewedGatewayClockIT}, run in a JVM of its own under libfaketime:
 * {@code url user heldLock freeLock ttlMs}. Prints {@code clock <ms>} (its skewed clock), then
 * tries {@code heldLock} and {@code freeLock} once each, printing {@code granted <token>} or
 * {@code held} for each, then halts without releasing: a granted lease ends by its ttl only.
 */
public final class SkewedClockGateway {
    public static void main(String[] args) throws Exception {
        SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().jdbcUrl(args[0]).user(args[1]).password("").poolSize(2).build();
        System.out.println("clock " + System.currentTimeMillis());
        Duration ttl = Duration.ofMillis(Long.parseLong(args[4]));
        for (String lock : new String[] {args[2], args[3]}) {
            Optional<Lease> lease = issuer.acquire(lock, ttl, Duration.ZERO).toCompletableFuture().get(30, TimeUnit.SECONDS);
            System.out.println(lease.map(l -> "granted " + l.token()).orElse("held"));
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
