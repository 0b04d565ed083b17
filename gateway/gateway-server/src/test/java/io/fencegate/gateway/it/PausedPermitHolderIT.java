package io.fencegate.gateway.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A permit that expires while its holder is paused, through the gateway, on every issuer: the
 * semaphore is under a {@code leases.lockDelay} prefix, so its slot stays taken for the delay after
 * the expiry, then goes to the next holder with a higher token; the paused holder's late write with
 * its old token is refused by the store (a files store), and what the next holder wrote stays.
 */
class PausedPermitHolderIT {
    private static final Duration DELAY = Duration.ofSeconds(2);
    private static final Duration PERMIT_TTL = Duration.ofMillis(1500);

    @ParameterizedTest
    @ValueSource(strings = {"zookeeper", "redis", "postgres", "mariadb"})
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void anExpiredPermitsSlotWaitsOutItsDelayAndItsPausedHoldersLateWriteIsRefused(String issuer) throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "paused-permit");
        Files.createDirectories(work.resolve("docs"));
        String redisPrefix = "fg-paused-permit-" + UUID.randomUUID() + ":";
        Vertx vertx = Vertx.vertx();
        try (TestingServer zookeeper = issuer.equals("zookeeper") ? new TestingServer(true) : null;
                TestDatabases db = issuer.equals("postgres") ? TestDatabases.create(TestDatabases.Kind.POSTGRES)
                        : issuer.equals("mariadb") ? TestDatabases.create(TestDatabases.Kind.MARIADB) : null) {
            String issuerYaml = switch (issuer) {
                case "zookeeper" -> "{ type: zookeeper, connectString: \"" + zookeeper.getConnectString() + "\" }";
                case "redis" -> "{ type: redis, uri: \"redis://127.0.0.1:6379\", keyPrefix: \"" + redisPrefix
                        + "\", highWaterMarkFile: \"" + work.resolve("mark") + "\" }";
                default -> "{ type: sql, url: \"" + db.url() + "\", user: " + db.user() + ", password: \"\" }";
            };
            Backends backends = Backends.open(ConfigLoader.parse("issuer: " + issuerYaml + "\nstores:\n  docs: { type: files, dir: \""
                    + work.resolve("docs") + "\" }\n", Map.of()), vertx);
            GatewayOptions options = new GatewayOptions().lockDelays(Map.of("docs/pool-", DELAY));
            try (GatewayHarness gw = new GatewayHarness(options, backends.issuer(), backends.stores(), List.of(backends))) {
                FencegateClient paused = gw.client();
                FencegateClient next = gw.client();
                String sem = "docs/pool-" + UUID.randomUUID();
                String item = sem.substring("docs/".length()) + "/0"; // slot 0's lock guards this item

                Lease stale = paused.acquirePermit(sem, 1, PERMIT_TTL, Duration.ZERO).orElseThrow();
                assertThat(stale.slot()).isZero();
                assertThat(paused.put("docs", item, stale.token(), "by the first holder".getBytes(UTF_8)).applied()).isTrue();
                // The holder pauses here: it neither renews nor releases.

                Lease taken = next.acquirePermit(sem, 1, Duration.ofSeconds(30), Duration.ofSeconds(60))
                        .orElseThrow(() -> new AssertionError("the expired permit's slot never freed"));
                assertThat(System.currentTimeMillis()).as("the slot was granted again within the lock-delay")
                        .isGreaterThanOrEqualTo(stale.expiresAt().toEpochMilli() + DELAY.toMillis() - 100);
                assertThat(taken.slot()).isEqualTo(stale.slot());
                assertThat(taken.token()).isGreaterThan(stale.token());
                assertThat(next.put("docs", item, taken.token(), "by the next holder".getBytes(UTF_8)).applied()).isTrue();

                // The paused holder wakes up and writes with the token it had.
                assertThat(paused.put("docs", item, stale.token(), "late".getBytes(UTF_8))).isInstanceOf(Stale.class);
                assertThat(paused.renew(stale.leaseId())).as("the expired permit").isEmpty();
                assertThat(((ReadOutcome.Value) next.get("docs", item)).bytes()).asString(UTF_8).isEqualTo("by the next holder");
                assertThat(next.release(taken.leaseId())).isTrue();
                Lease afterRelease = next.acquirePermit(sem, 1, Duration.ofSeconds(30), Duration.ZERO)
                        .orElseThrow(() -> new AssertionError("a released permit's slot kept its lock-delay"));
                assertThat(afterRelease.token()).isGreaterThan(taken.token());
                assertThat(next.release(afterRelease.leaseId())).isTrue();
            }
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
            if (issuer.equals("redis")) {
                try (var redis = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379"); var c = redis.connect()) {
                    var keys = c.sync().keys(redisPrefix + "*");
                    if (!keys.isEmpty()) {
                        c.sync().del(keys.toArray(String[]::new));
                    }
                }
            }
            LeaseEventsIT.deleteTree(work);
        }
    }
}
