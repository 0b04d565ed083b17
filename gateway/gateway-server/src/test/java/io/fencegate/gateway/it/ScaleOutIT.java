package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.WriteOutcome;
import io.fencegate.testing.GatewayProcess;
import io.lettuce.core.RedisClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two gateway processes on one issuer (a ZooKeeper, or Redis with a shared token high-water mark)
 * and one Postgres (the reactive store, {@code type: postgres}): a lease taken through one is
 * renewed and released through the other, and clients spread over both see one lock and one
 * token order.
 */
class ScaleOutIT {
    private static final int WORKERS = 4;
    private static final int ROUNDS = 12;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void twoGatewaysOnZooKeeperShareOneLockAndOneTokenOrder() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true);
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            runTwoGateways("""
                    issuer: { type: zookeeper, connectString: "%s", operationTimeout: 5s }
                    """.formatted(zookeeper.getConnectString()), db);
        }
    }

    /** The Redis issuer on two hosts: its token high-water mark is a row both gateways share. */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void twoGatewaysOnRedisShareOneLockAndOneTokenOrder() throws Exception {
        String prefix = "fg-scale-" + UUID.randomUUID() + ":";
        try (TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            runTwoGateways("""
                    issuer:
                      type: redis
                      uri: redis://127.0.0.1:6379
                      keyPrefix: "%s"
                      highWaterMarkUrl: "%s"
                      highWaterMarkUser: postgres
                    """.formatted(prefix, db.url()), db);
            assertThat(db.queryLong("SELECT mark FROM fencegate_token_mark WHERE name = '" + prefix + "'"))
                    .as("the shared mark covers the tokens").isPositive();
        } finally {
            try (var redis = RedisClient.create("redis://127.0.0.1:6379"); var c = redis.connect()) {
                var keys = c.sync().keys(prefix + "*");
                if (!keys.isEmpty()) {
                    c.sync().del(keys.toArray(String[]::new));
                }
            }
        }
    }

    private static void runTwoGateways(String issuerYaml, TestDatabases db) throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "scale-out");
        try {
            Path config = work.resolve("fencegate.yaml");
            Files.writeString(config, """
                    server: { port: 0 }
                    %s
                    stores:
                      shop: { type: postgres, host: 127.0.0.1, port: 5432, database: test, schema: %s, user: postgres, poolSize: 4 }
                    """.formatted(issuerYaml.strip(), db.name));
            try (GatewayProcess a = GatewayProcess.start(work, "serve", "--config", config.toString());
                    GatewayProcess b = GatewayProcess.start(work, "serve", "--config", config.toString())) {
                a.awaitReady(90);
                b.awaitReady(90);
                List<FencegateClient> gateways = List.of(client(a), client(b));
                leaseMovesBetweenGateways(gateways.get(0), gateways.get(1));
                counterOverBothGateways(gateways);
            }
        } finally {
            try (var all = Files.walk(work)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static FencegateClient client(GatewayProcess gw) {
        return FencegateClient.builder(gw.uri()).timeout(Duration.ofSeconds(20)).build();
    }

    private static void leaseMovesBetweenGateways(FencegateClient a, FencegateClient b) {
        Lease lease = a.acquire("shop/handover", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(b.acquire("shop/handover", Duration.ofSeconds(30), Duration.ZERO)).as("held, seen from B").isEmpty();
        assertThat(b.renew(lease.leaseId())).isPresent();
        assertThat(b.release(lease.leaseId())).isTrue();
        Lease next = a.acquire("shop/handover", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(next.token()).isGreaterThan(lease.token());
        assertThat(a.release(next.leaseId())).isTrue();
    }

    /** Each round: lease through one gateway, fenced read, write +1 and release through the other. */
    private static void counterOverBothGateways(List<FencegateClient> gateways) throws Exception {
        List<Long> tokensInLockOrder = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                int worker = w;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        FencegateClient via = gateways.get((worker + round) % 2);
                        FencegateClient other = gateways.get((worker + round + 1) % 2);
                        Lease lease = via.acquire("shop/counter", Duration.ofSeconds(30), Duration.ofSeconds(60)).orElseThrow();
                        tokensInLockOrder.add(lease.token());
                        ReadOutcome read = other.get("shop", "counter", lease.token());
                        long value = read instanceof ReadOutcome.Value v
                                ? Long.parseLong(new String(v.bytes(), StandardCharsets.UTF_8)) : 0;
                        WriteOutcome written = via.put("shop", "counter", lease.token(),
                                Long.toString(value + 1).getBytes(StandardCharsets.UTF_8));
                        assertThat(written).isInstanceOf(WriteOutcome.Applied.class);
                        assertThat(other.release(lease.leaseId())).isTrue();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(180, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        ReadOutcome.Value end = (ReadOutcome.Value) gateways.get(0).get("shop", "counter");
        assertThat(Long.parseLong(new String(end.bytes(), StandardCharsets.UTF_8))).isEqualTo(WORKERS * ROUNDS);
        assertThat(tokensInLockOrder).hasSize(WORKERS * ROUNDS).isSorted().doesNotHaveDuplicates();
    }
}
