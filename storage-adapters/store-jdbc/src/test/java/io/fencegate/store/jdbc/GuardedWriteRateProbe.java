package io.fencegate.store.jdbc;

import static io.fencegate.store.testkit.Stages.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.store.GuardRule;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hand-run probe, not part of the build (the name matches neither *Test nor *IT): guarded writes
 * through {@link JdbcGuardedStore} next to the same write without a guard (a plain one-statement
 * upsert on the same pool size), per database, in one run. Asserts nothing about time.
 *
 * <pre>mvn -B -q -o -pl storage-adapters/store-jdbc -am verify -Dtest=GuardedWriteRateProbe -Dsurefire.failIfNoSpecifiedTests=false
 * cat storage-adapters/store-jdbc/target/surefire-reports/io.fencegate.store.jdbc.GuardedWriteRateProbe-output.txt</pre>
 */
@Timeout(300)
class GuardedWriteRateProbe {

    private static final int KEYS = 1000;
    private static final long MILLIS = Long.getLong("probe.millis", 3000);
    private static final byte[] VALUE = new byte[100];

    @Test
    void guardedVersusPlainWriteRate() throws Exception {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            try (TestDatabase db = TestDatabase.create(kind)) {
                for (int threads : new int[] {1, 8}) {
                    double guarded = guarded(db, threads);
                    double plain = plain(db, threads);
                    System.out.printf(Locale.ROOT, "%-8s threads=%d  guarded %8.0f writes/s   plain upsert %8.0f writes/s   ratio %.2f%n",
                            kind, threads, guarded, plain, guarded / plain);
                }
            }
        }
    }

    private static double guarded(TestDatabase db, int threads) throws Exception {
        try (JdbcGuardedStore store = JdbcGuardedStore.open(db.options().rule(GuardRule.STRICT).poolSize(threads))) {
            AtomicLongArray tokens = new AtomicLongArray(KEYS);
            String prefix = "g" + threads + "/";
            return run(threads, i -> {
                int k = i % KEYS;
                long t = tokens.incrementAndGet(k);
                // With several threads on one key a later token may overtake: stale is a valid answer.
                await(store.write(prefix + k, t, VALUE));
            });
        }
    }

    private static double plain(TestDatabase db, int threads) throws Exception {
        String upsert = switch (db.kind()) {
            case POSTGRES -> "INSERT INTO plain_item (resource, val, token) VALUES (?, ?, ?)"
                    + " ON CONFLICT (resource) DO UPDATE SET val = EXCLUDED.val, token = EXCLUDED.token";
            case MARIADB -> "INSERT INTO plain_item (resource, val, token) VALUES (?, ?, ?)"
                    + " ON DUPLICATE KEY UPDATE val = VALUES(val), token = VALUES(token)";
            case H2 -> "MERGE INTO plain_item (resource, val, token) KEY (resource) VALUES (?, ?, ?)";
        };
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.username());
        config.setMaximumPoolSize(threads);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS plain_item (resource VARCHAR(255) NOT NULL PRIMARY KEY, val "
                        + (db.kind() == TestDatabase.Kind.POSTGRES ? "BYTEA" : "BLOB") + ", token BIGINT NOT NULL)");
            }
            AtomicLongArray tokens = new AtomicLongArray(KEYS);
            String prefix = "p" + threads + "/";
            return run(threads, i -> {
                int k = i % KEYS;
                try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(upsert)) {
                    ps.setString(1, prefix + k);
                    ps.setBytes(2, VALUE);
                    ps.setLong(3, tokens.incrementAndGet(k));
                    ps.executeUpdate();
                }
            });
        }
    }

    interface Op {
        void run(int i) throws Exception;
    }

    /** Warm up for a second, then count operations of {@code threads} loops for {@link #MILLIS}. */
    private static double run(int threads, Op op) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            loop(pool, threads, op, 1000);
            long started = System.nanoTime();
            long ops = loop(pool, threads, op, MILLIS);
            return ops / ((System.nanoTime() - started) / 1e9);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long loop(ExecutorService pool, int threads, Op op, long millis) throws Exception {
        long until = System.currentTimeMillis() + millis;
        List<Future<Long>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int offset = t * 7919;
            results.add(pool.submit(() -> {
                long n = 0;
                while (System.currentTimeMillis() < until) {
                    op.run((int) (offset + n));
                    n++;
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> f : results) {
            total += f.get();
        }
        return total;
    }
}
