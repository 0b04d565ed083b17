package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.testing.GatewayProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code leases.lockDelay} through two gateways: a lease on a delayed prefix that expires keeps its
 * lock from the other gateway's clients for the delay; a released one frees it at once; other
 * prefixes have none. On ZooKeeper and on Redis, and after a SIGKILL of the gateway holding the
 * ZooKeeper session (an involuntary end by session loss).
 */
class LockDelayIT {
    private static final Duration DELAY = Duration.ofMillis(1500);
    private static final GatewayOptions OPTIONS = new GatewayOptions().lockDelays(Map.of("slow/", DELAY));

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onZooKeeperAnExpiredLeaseDelaysTheNextGrantThroughAnotherGatewayAndAReleaseDoesNot() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            bothEnds(() -> ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onRedisAnExpiredLeaseDelaysTheNextGrantThroughAnotherGatewayAndAReleaseDoesNot() throws Exception {
        String prefix = "fg-delay-" + UUID.randomUUID() + ":";
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "delay-hwm");
        try {
            bothEnds(() -> new RedisLeaseIssuer(new RedisIssuerOptions().uri("redis://127.0.0.1:6379").keyPrefix(prefix)
                    .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.hwm")))));
        } finally {
            try (var redis = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379"); var c = redis.connect()) {
                var keys = c.sync().keys(prefix + "*");
                if (!keys.isEmpty()) {
                    c.sync().del(keys.toArray(String[]::new));
                }
            }
            LeaseEventsIT.deleteTree(dir);
        }
    }

    private static void bothEnds(Supplier<LeaseIssuer> issuers) throws Exception {
        LeaseIssuer issuerA = issuers.get();
        LeaseIssuer issuerB = issuers.get();
        try (GatewayHarness a = new GatewayHarness(OPTIONS, issuerA, List.of(), List.of(issuerA));
                GatewayHarness b = new GatewayHarness(OPTIONS, issuerB, List.of(), List.of(issuerB))) {
            FencegateClient viaA = a.client();
            FencegateClient viaB = b.client();

            Lease expiring = viaA.acquire("slow/1", Duration.ofMillis(300), Duration.ZERO).orElseThrow();
            long expiresAt = expiring.expiresAt().toEpochMilli();
            while (System.currentTimeMillis() < expiresAt + 200) {
                Thread.sleep(50);
            }
            assertThat(viaB.acquire("slow/1", Duration.ofSeconds(10), Duration.ZERO)).as("inside the delay").isEmpty();
            Lease next = viaB.acquire("slow/1", Duration.ofSeconds(10), Duration.ofSeconds(10)).orElseThrow();
            long grantedAt = System.currentTimeMillis();
            // The upper bound is liveness (a busy machine delays the expiry), the lower one is the delay.
            assertThat(grantedAt).isBetween(expiresAt + DELAY.toMillis() - 50, expiresAt + DELAY.toMillis() + 6000);
            assertThat(viaB.release(next.leaseId())).isTrue();

            Lease released = viaA.acquire("slow/2", Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
            assertThat(viaA.release(released.leaseId())).isTrue();
            assertThat(viaB.acquire("slow/2", Duration.ofSeconds(10), Duration.ZERO)).as("a release: at once").isPresent();

            Lease undelayed = viaA.acquire("fast/1", Duration.ofMillis(300), Duration.ZERO).orElseThrow();
            while (System.currentTimeMillis() < undelayed.expiresAt().toEpochMilli() + 200) {
                Thread.sleep(50);
            }
            // Free within the key's margin past the lease (250 ms: see the Redis issuer), long before a delay.
            Lease free = viaB.acquire("fast/1", Duration.ofSeconds(10), Duration.ofSeconds(1)).orElseThrow();
            assertThat(System.currentTimeMillis()).as("no delay configured")
                    .isLessThan(undelayed.expiresAt().toEpochMilli() + DELAY.toMillis());
            assertThat(viaB.release(free.leaseId())).isTrue();
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aLeaseLostWithItsKilledGatewaysSessionDelaysTheNextGrant() throws Exception {
        String delay = "leases:\n  lockDelay: { \"slow/\": 3s }\n"; // on A only
        try (KillableGatewayPair pair = KillableGatewayPair.start("delay-killed", delay)) {
            GatewayProcess a = pair.a;
            GatewayHarness b = pair.b;
            FencegateClient viaA = pair.viaA;
            FencegateClient viaB = b.client();
            Lease lease = viaA.acquire("slow/killed", Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
            a.kill();
            // Wait (through B) for the session to end: the lease is gone once renew says so.
            long deadline = System.currentTimeMillis() + 30_000;
            while (viaB.renew(lease.leaseId()).isPresent()) {
                assertThat(System.currentTimeMillis()).as("the session ends").isLessThan(deadline);
                Thread.sleep(100);
            }
            long endSeenAt = System.currentTimeMillis();
            // B's own config has no delay: the delay is the one the lease was granted with, kept in ZooKeeper.
            assertThat(viaB.acquire("slow/killed", Duration.ofSeconds(10), Duration.ZERO)).as("inside the delay").isEmpty();
            Lease next = viaB.acquire("slow/killed", Duration.ofSeconds(10), Duration.ofSeconds(10)).orElseThrow();
            assertThat(System.currentTimeMillis() - endSeenAt).as("waited about the delay").isBetween(2500L, 6000L);
            assertThat(next.token()).isGreaterThan(lease.token());
        }
    }
}
