package io.fencegate.store.postgres;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.GuardRule;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Tuple;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Hand-run probe, not part of the build: guarded writes through {@link PgGuardedStore} next to a
 * plain one-statement upsert on an identical pool, same run, 1 and 32 writes in flight. Asserts
 * nothing about time.
 *
 * <pre>mvn -B -q -o -pl storage-adapters/store-postgres verify -Dtest=PgWriteRateProbe -Dsurefire.failIfNoSpecifiedTests=false
 * cat storage-adapters/store-postgres/target/surefire-reports/io.fencegate.store.postgres.PgWriteRateProbe-output.txt</pre>
 */
@Timeout(120)
class PgWriteRateProbe {
    private static final long MILLIS = 3000;
    private static final int KEYS = 1000;

    @Test
    void guardedVersusPlainWriteRate() throws Exception {
        String schema = "fg_probe_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "")) {
            c.createStatement().execute("CREATE SCHEMA " + schema);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema);
        ds.setUser("postgres");
        FencegateSchema.migrate(ds);
        Vertx vertx = Vertx.vertx();
        PgStoreOptions options = new PgStoreOptions().database("test").schema(schema).poolSize(8);
        try (PgGuardedStore store = PgGuardedStore.open(vertx, options)) {
            Pool plain = PgBuilder.pool().with(new PoolOptions().setMaxSize(8))
                    .connectingTo(new PgConnectOptions().setHost("127.0.0.1").setPort(5432).setDatabase("test")
                            .setUser("postgres").setCachePreparedStatements(true).setPipeliningLimit(256)
                            .setProperties(Map.of("search_path", schema)))
                    .using(vertx).build();
            byte[] value = new byte[100];
            String upsert = "INSERT INTO fencegate_item (resource, val, token, fence) VALUES ($1, $2, $3, $3)"
                    + " ON CONFLICT (resource) DO UPDATE SET val = EXCLUDED.val, token = EXCLUDED.token, fence = EXCLUDED.fence";
            for (int inFlight : new int[] {1, 32}) {
                double guarded = rate(inFlight, t -> CompletableFuture.completedStage(null)
                        .thenCompose(x -> store.write("g" + (t % KEYS), t, value)));
                double unguarded = rate(inFlight, t -> plain.preparedQuery(upsert)
                        .execute(Tuple.of("p" + (t % KEYS), Buffer.buffer(value), t)).toCompletionStage());
                System.out.printf("postgres reactive, %d in flight: guarded %.0f writes/s, plain upsert %.0f/s (ratio %.2f)%n",
                        inFlight, guarded, unguarded, guarded / unguarded);
            }
            plain.close().await(10, TimeUnit.SECONDS);
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "")) {
                c.createStatement().execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /** Writes per second with {@code inFlight} outstanding, each write's token rising. */
    private static double rate(int inFlight, LongFunction<java.util.concurrent.CompletionStage<?>> write) throws Exception {
        AtomicLong tokens = new AtomicLong(System.nanoTime() / 1000);
        AtomicLong done = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MILLIS);
        CompletableFuture<?>[] lanes = new CompletableFuture<?>[inFlight];
        for (int i = 0; i < inFlight; i++) {
            lanes[i] = lane(write, tokens, done, end);
        }
        CompletableFuture.allOf(lanes).get(60, TimeUnit.SECONDS);
        return done.get() * 1000.0 / MILLIS;
    }

    private static CompletableFuture<Void> lane(LongFunction<java.util.concurrent.CompletionStage<?>> write,
            AtomicLong tokens, AtomicLong done, long end) {
        if (System.nanoTime() > end) {
            return CompletableFuture.completedFuture(null);
        }
        return write.apply(tokens.incrementAndGet()).toCompletableFuture()
                .thenCompose(x -> {
                    done.incrementAndGet();
                    return lane(write, tokens, done, end);
                });
    }
}
