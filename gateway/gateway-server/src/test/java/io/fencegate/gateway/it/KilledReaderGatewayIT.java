package io.fencegate.gateway.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.LeaseMode;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.testing.GatewayProcess;
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
 * A reader that dies: the gateway that granted a read lease (a child process) is killed with
 * SIGKILL, so nobody renews or releases the lease. It ends by its ttl (on ZooKeeper, or by the
 * gateway's session, whichever is first); a writer waiting through another gateway then gets the
 * lock with a higher token, and the dead reader's token no longer reads what the writer wrote. On
 * the ZooKeeper, Redis and SQL (PostgreSQL) issuers, each gateway with an issuer of its own on the
 * one backend (on Redis, one token mark in PostgreSQL, as two hosts share) and a files store on one
 * folder.
 */
class KilledReaderGatewayIT {
    private static final Duration READ_TTL = Duration.ofSeconds(3);

    @ParameterizedTest
    @ValueSource(strings = {"zookeeper", "redis", "postgres"})
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aKilledReadersLeaseEndsByItsTtlAndTheWriterAfterItFencesItOut(String issuer) throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "killed-reader");
        Files.createDirectories(work.resolve("docs"));
        String redisPrefix = "fg-killed-reader-" + UUID.randomUUID() + ":";
        Vertx vertx = Vertx.vertx();
        try (TestingServer zookeeper = issuer.equals("zookeeper") ? new TestingServer(true) : null;
                TestDatabases db = issuer.equals("zookeeper") ? null : TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            String issuerYaml = switch (issuer) {
                case "zookeeper" -> "{ type: zookeeper, connectString: \"" + zookeeper.getConnectString()
                        + "\", sessionTimeout: 6s, operationTimeout: 5s }";
                // Two hosts on one Redis prefix share its token mark: a row in PostgreSQL.
                case "redis" -> "{ type: redis, uri: \"redis://127.0.0.1:6379\", keyPrefix: \"" + redisPrefix
                        + "\", highWaterMarkUrl: \"" + db.url() + "\", highWaterMarkUser: " + db.user() + " }";
                default -> "{ type: sql, url: \"" + db.url() + "\", user: " + db.user() + ", password: \"\" }";
            };
            String yaml = "issuer: " + issuerYaml + "\nstores:\n  docs: { type: files, dir: \"" + work.resolve("docs") + "\" }\n";
            Path configA = work.resolve("a.yaml");
            Files.writeString(configA, yaml);
            Backends backendsB = Backends.open(ConfigLoader.parse(yaml, Map.of()), vertx);
            try (GatewayProcess a = GatewayProcess.start(work, "serve", "--config", configA.toString());
                    GatewayHarness b = new GatewayHarness(new GatewayOptions(), backendsB.issuer(), backendsB.stores(), List.of(backendsB))) {
                FencegateClient viaA = FencegateClient.builder(a.awaitReady(180).uri()).timeout(Duration.ofSeconds(60)).build();
                FencegateClient viaB = b.client();
                String key = "item-" + UUID.randomUUID();
                Lease first = viaB.acquire("docs/" + key, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
                assertThat(viaB.put("docs", key, first.token(), "v1".getBytes(UTF_8)).applied()).isTrue();
                assertThat(viaB.release(first.leaseId())).isTrue();

                Lease read = viaA.acquire("docs/" + key, LeaseMode.READ, READ_TTL, Duration.ZERO).orElseThrow();
                assertThat(read.token()).isGreaterThan(first.token());
                assertThat(((ReadOutcome.Value) viaA.get("docs", key, read.token())).bytes()).asString(UTF_8).isEqualTo("v1");

                a.kill();
                assertThat(a.exit(30)).as("killed, not stopped").isNotZero();

                // Nobody renews the read lease now: the writer waits out its ttl, not a release.
                Lease write = viaB.acquire("docs/" + key, READ_TTL.multipliedBy(20), Duration.ofSeconds(60))
                        .orElseThrow(() -> new AssertionError("the dead reader's lease never ended"));
                assertThat(System.currentTimeMillis()).as("the writer came in before the read lease's ttl ran out")
                        .isGreaterThanOrEqualTo(read.expiresAt().toEpochMilli() - 100);
                assertThat(write.token()).isGreaterThan(read.token());
                assertThat(viaB.renew(read.leaseId())).as("the dead reader's lease is gone").isEmpty();
                assertThat(viaB.put("docs", key, write.token(), "v2".getBytes(UTF_8)).applied()).isTrue();

                assertThat(viaB.get("docs", key, read.token())).as("the dead reader's token reads past the writer").isInstanceOf(Stale.class);
                assertThat(((ReadOutcome.Value) viaB.get("docs", key, write.token())).bytes()).asString(UTF_8).isEqualTo("v2");
                assertThat(viaB.release(write.leaseId())).isTrue();
            }
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
            if (issuer.equals("redis")) {
                deleteRedisKeys(redisPrefix);
            }
            LeaseEventsIT.deleteTree(work);
        }
    }

    private static void deleteRedisKeys(String prefix) {
        try (var redis = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379"); var c = redis.connect()) {
            var keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        }
    }
}
