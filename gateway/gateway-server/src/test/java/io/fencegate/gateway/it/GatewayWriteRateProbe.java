package io.fencegate.gateway.it;

import io.fencegate.client.FencegateClient;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.postgres.PgGuardedStore;
import io.fencegate.store.postgres.PgStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hand-run probe, not part of the build: guarded writes through the gateway's HTTP API (with a
 * Vert.x HTTP client, and with {@link FencegateClient} on the JDK HttpClient) next to the same
 * writes straight into the reactive Postgres store it fronts, same run, 1 and 32 in flight.
 * Prints writes/s and p50/p99 latency; asserts nothing about time.
 *
 * <pre>mvn -B -q -o -pl gateway/gateway-server verify -Dtest=GatewayWriteRateProbe -Dsurefire.failIfNoSpecifiedTests=false
 * grep probe gateway/gateway-server/target/surefire-reports/io.fencegate.gateway.it.GatewayWriteRateProbe-output.txt</pre>
 */
@Timeout(300)
class GatewayWriteRateProbe {
    private static final long MILLIS = 4000;

    @Test
    void gatewayVersusDirectStoreWriteRate() throws Exception {
        Vertx storeVertx = Vertx.vertx();
        try (TestingServer zookeeper = new TestingServer(true);
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            db.store(GuardRule.STRICT).close(); // migrates the schema
            var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build();
            PgGuardedStore store = PgGuardedStore.open(storeVertx, new PgStoreOptions().database("test")
                    .schema(db.name).name(db.name).poolSize(8));
            // One lock for the whole store: one lease's token writes every (fresh) key once.
            StoreBinding binding = new StoreBinding("pg", store, null, Map.of(), "bench");
            try (GatewayHarness gw = new GatewayHarness(new GatewayOptions(), issuer, List.of(binding), List.of(issuer, store))) {
                long token = gw.client().acquire("bench", Duration.ofMinutes(5), Duration.ZERO).orElseThrow().token();
                HttpClient http = storeVertx.createHttpClient(new PoolOptions().setHttp1MaxSize(64));
                FencegateClient client = gw.client();
                ExecutorService callers = Executors.newFixedThreadPool(32);
                byte[] value = new byte[100];
                try {
                    for (int inFlight : new int[] {1, 32}) {
                        String run = inFlight + "-";
                        Result direct = run(inFlight, i -> store.write("direct-" + run + i, token, value));
                        Result vertx = run(inFlight, i -> http.request(HttpMethod.PUT, gw.gateway.port(), "127.0.0.1",
                                        "/v1/stores/pg/items/vertx-" + run + i)
                                .compose(req -> req.putHeader("Fencing-Token", Long.toString(token)).send(Buffer.buffer(value)))
                                .compose(response -> response.statusCode() == 200 ? response.body()
                                        : Future.failedFuture("HTTP " + response.statusCode()))
                                .toCompletionStage());
                        Result jdk = run(inFlight, i -> CompletableFuture.supplyAsync(
                                () -> client.put("pg", "client-" + run + i, token, value), callers));
                        System.out.printf("probe: %d in flight: direct store %s%n", inFlight, direct);
                        System.out.printf("probe: %d in flight: gateway, Vert.x HTTP client %s (ratio %.2f)%n",
                                inFlight, vertx, vertx.rate / direct.rate);
                        System.out.printf("probe: %d in flight: gateway, FencegateClient (JDK HttpClient) %s (ratio %.2f)%n",
                                inFlight, jdk, jdk.rate / direct.rate);
                    }
                } finally {
                    callers.shutdownNow();
                }
            }
        } finally {
            storeVertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    private record Result(double rate, Histogram micros) {
        @Override
        public String toString() {
            return String.format("%.0f writes/s p50 %d us p99 %d us", rate,
                    micros.getValueAtPercentile(50), micros.getValueAtPercentile(99));
        }
    }

    /** Writes a fresh key each time, {@code inFlight} outstanding, for {@link #MILLIS}. */
    private static Result run(int inFlight, LongFunction<CompletionStage<?>> write) throws Exception {
        AtomicLong keys = new AtomicLong();
        AtomicLong done = new AtomicLong();
        Histogram micros = new ConcurrentHistogram(3);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MILLIS);
        CompletableFuture<?>[] lanes = new CompletableFuture<?>[inFlight];
        for (int i = 0; i < inFlight; i++) {
            lanes[i] = lane(write, keys, done, micros, end);
        }
        CompletableFuture.allOf(lanes).get(120, TimeUnit.SECONDS);
        return new Result(done.get() * 1000.0 / MILLIS, micros);
    }

    private static CompletableFuture<Void> lane(LongFunction<CompletionStage<?>> write, AtomicLong keys,
            AtomicLong done, Histogram micros, long end) {
        long start = System.nanoTime();
        if (start > end) {
            return CompletableFuture.completedFuture(null);
        }
        return write.apply(keys.incrementAndGet()).toCompletableFuture().thenCompose(x -> {
            micros.recordValue(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
            done.incrementAndGet();
            return lane(write, keys, done, micros, end);
        });
    }
}
