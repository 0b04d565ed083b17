package io.fencegate.issuer.redis;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseWatchdog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A lease holder in its own JVM, for {@link LeaseWatchdogPausedHolderIT}: acquires one lease through
 * {@link RedisLeaseIssuer}, keeps it alive with {@link LeaseWatchdog}, and every 5 ms prints
 * {@code t=<System.nanoTime()> holds=<what the keep-alive says>} (the time taken before asking), until
 * it no longer holds the lease; then prints {@code lost t=...} and exits.
 * Arguments: Redis URI, key prefix, mark file, lock, ttl in ms; then, for a permit instead of a
 * lease, the semaphore's permit count and the permit's lock-delay in ms (the lock names the semaphore).
 */
public final class PausedHolder {

    private PausedHolder() { }

    public static void main(String[] args) throws Exception {
        Duration ttl = Duration.ofMillis(Long.parseLong(args[4]));
        try (RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(args[0]).keyPrefix(args[1])
                .commandTimeout(Duration.ofSeconds(2)).highWaterMark(new FileTokenHighWaterMark(Path.of(args[2]))));
             LeaseWatchdog watchdog = new LeaseWatchdog(issuer)) {
            Lease lease = (args.length > 5
                    ? issuer.acquirePermit(args[3], Integer.parseInt(args[5]), ttl, Duration.ofSeconds(10),
                            Duration.ofMillis(Long.parseLong(args[6])))
                    : issuer.acquire(args[3], ttl, Duration.ofSeconds(10))).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS).orElseThrow();
            LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(lease, ttl,
                    lost -> System.out.println("told t=" + System.nanoTime()));
            System.out.println("acquired token=" + lease.token() + " slot=" + lease.slot());
            while (true) {
                long t = System.nanoTime();
                boolean holds = keepAlive.holds();
                System.out.println("t=" + t + " holds=" + holds);
                if (!holds) {
                    System.out.println("lost t=" + System.nanoTime());
                    return;
                }
                Thread.sleep(5);
            }
        }
    }
}
