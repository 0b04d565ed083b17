package io.fencegate.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import io.fencegate.store.postgres.PgGuardedStore;
import io.fencegate.store.postgres.PgStoreOptions;
import io.vertx.core.Vertx;
import java.io.BufferedWriter;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.postgresql.PGConnection;

/**
 * Items per store: a fresh store loaded with that many 100-byte items by the database's own bulk
 * load (COPY on Postgres, LOAD DATA on MariaDB; not through the API), then guarded writes and
 * fenced reads of random items, {@link #IN_FLIGHT} in flight, through the store as a library (the
 * reactive Postgres store, the JDBC store on MariaDB).
 */
final class ItemsPerStore {
    static final int IN_FLIGHT = 16;
    private static final String VALUE_HEX = HexFormat.of().formatHex(WriteBenchData.VALUE);

    /** {@code tableBytes}: the item table with its indexes, as the database reports it after the load. */
    record Point(String store, long items, double loadSeconds, double writeOps, double writeP99Ms, double readOps,
                 double readP99Ms, long tableBytes) { }

    private ItemsPerStore() {}

    static List<Point> run(long[] sizes, Duration window, Path work) throws Exception {
        List<Point> points = new ArrayList<>();
        Vertx vertx = Vertx.vertx();
        try {
            for (long n : sizes) {
                points.add(postgres(vertx, n, window));
            }
            for (long n : sizes) {
                points.add(mariadb(n, window, work));
            }
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        return points;
    }

    private static Point postgres(Vertx vertx, long n, Duration window) throws Exception {
        String schema = WriteBenchData.freshNamespace();
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        try {
            migrate(url + "?currentSchema=" + schema, "postgres");
            long start = System.nanoTime();
            try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
                // COPY streams rows generated here: nothing of that size is held in memory at once.
                Reader rows = new RowsReader(n, i -> item(i) + ",\\x" + VALUE_HEX + ",1,1\n");
                c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + schema
                        + ".fencegate_item (resource, val, token, fence) FROM STDIN (FORMAT csv)", rows);
                try (Statement s = c.createStatement()) {
                    s.execute("ANALYZE " + schema + ".fencegate_item");
                }
            }
            double load = (System.nanoTime() - start) / 1e9;
            long bytes = longOf(url, "postgres", "SELECT pg_total_relation_size('" + schema + ".fencegate_item')");
            GuardedStore store = PgGuardedStore.open(vertx, new PgStoreOptions().database("test").user("postgres")
                    .schema(schema).poolSize(IN_FLIGHT).name(schema.replace('_', '-')).rule(GuardRule.SAME_LEASE));
            try {
                return measure("Postgres", store, n, load, bytes, window);
            } finally {
                store.close();
            }
        } finally {
            try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static Point mariadb(long n, Duration window, Path work) throws Exception {
        String db = WriteBenchData.freshNamespace();
        String server = "jdbc:mariadb://127.0.0.1:3306/";
        try (Connection c = DriverManager.getConnection(server, "root", ""); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        Path csv = work.resolve(db + ".csv");
        try {
            migrate(server + db, "root");
            long start = System.nanoTime();
            try (BufferedWriter out = Files.newBufferedWriter(csv, StandardCharsets.US_ASCII)) {
                for (long i = 0; i < n; i++) {
                    out.write(item(i) + "," + VALUE_HEX + ",1,1\n");
                }
            }
            try (Connection c = DriverManager.getConnection(server + db + "?allowLocalInfile=true", "root", "");
                 Statement s = c.createStatement()) {
                s.execute("LOAD DATA LOCAL INFILE '" + csv.toAbsolutePath() + "' INTO TABLE fencegate_item"
                        + " FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n' (resource, @v, token, fence)"
                        + " SET val = UNHEX(@v)");
                s.execute("ANALYZE TABLE fencegate_item");
            }
            double load = (System.nanoTime() - start) / 1e9;
            Files.deleteIfExists(csv);
            long bytes = longOf(server, "root", "SELECT data_length + index_length FROM information_schema.tables"
                    + " WHERE table_schema = '" + db + "' AND table_name = 'fencegate_item'");
            GuardedStore store = JdbcGuardedStore.open(new JdbcStoreOptions().jdbcUrl(server + db).username("root")
                    .password("").poolSize(IN_FLIGHT).name(db.replace('_', '-')).rule(GuardRule.SAME_LEASE));
            try {
                return measure("MariaDB", store, n, load, bytes, window);
            } finally {
                store.close();
            }
        } finally {
            Files.deleteIfExists(csv);
            try (Connection c = DriverManager.getConnection(server, "root", ""); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE " + db);
            }
        }
    }

    private static void migrate(String url, String user) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(2);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            FencegateSchema.migrate(ds);
        }
    }

    private static long longOf(String url, String user, String query) throws Exception {
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery(query)) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    private static Point measure(String name, GuardedStore store, long n, double load, long bytes, Duration window)
            throws Exception {
        // Warm the pool and the JIT on the same work, then measure writes and fenced reads of random items.
        inFlight(Duration.ofSeconds(2), () -> store.write(key(n), 2, WriteBenchData.VALUE));
        double[] w = inFlight(window, () -> store.write(key(n), 2, WriteBenchData.VALUE).thenAccept(r -> {
            if (!(r instanceof Applied)) {
                throw new IllegalStateException("a guarded write was not applied: " + r);
            }
        }));
        double[] r = inFlight(window, () -> store.fencedRead(key(n), 2).thenAccept(found -> {
            if (!(found instanceof Found)) {
                throw new IllegalStateException("a fenced read of a loaded item found " + found);
            }
        }));
        Point p = new Point(name, n, load, w[0], w[1], r[0], r[1], bytes);
        System.err.printf(Locale.ROOT, "bench scale: %s %,d items (loaded in %.0f s, %,d bytes): writes %.0f/s p99 %.2f ms,"
                + " fenced reads %.0f/s p99 %.2f ms%n", name, n, load, bytes, w[0], w[1], r[0], r[1]);
        return p;
    }

    private static String key(long n) {
        return item(ThreadLocalRandom.current().nextLong(n));
    }

    /** Zero-padded, so the bulk load arrives in key order: the primary key's B-tree is appended to, not split at random. */
    private static String item(long i) {
        String digits = Long.toString(i);
        return "item-" + "0".repeat(Math.max(0, 10 - digits.length())) + digits;
    }

    /** {@link #IN_FLIGHT} operations kept in flight for {@code window}: {ops/s, p99 ms}. */
    private static double[] inFlight(Duration window, java.util.function.Supplier<CompletionStage<?>> op) throws Exception {
        Histogram latency = Sample.newHistogram();
        AtomicLong ops = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long stop = start + window.toNanos();
        List<CompletableFuture<Void>> slots = new ArrayList<>();
        for (int i = 0; i < IN_FLIGHT; i++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            slots.add(done);
            next(op, stop, latency, ops, failure, done);
        }
        CompletableFuture.allOf(slots.toArray(CompletableFuture[]::new)).get(window.toSeconds() + 120, TimeUnit.SECONDS);
        if (failure.get() != null) {
            throw new IllegalStateException(failure.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new double[] {ops.get() / seconds, latency.getValueAtPercentile(99) / 1000.0};
    }

    private static void next(java.util.function.Supplier<CompletionStage<?>> op, long stop, Histogram latency,
                             AtomicLong ops, AtomicReference<Throwable> failure, CompletableFuture<Void> done) {
        long before = System.nanoTime();
        if (before >= stop || failure.get() != null) {
            done.complete(null);
            return;
        }
        op.get().whenComplete((ok, error) -> {
            if (error != null) {
                failure.compareAndSet(null, error);
                done.complete(null);
                return;
            }
            synchronized (latency) {
                latency.recordValue(Math.max(1, (System.nanoTime() - before) / 1000));
            }
            ops.incrementAndGet();
            // Off the completing thread: a store that completes inline must not recurse without end.
            CompletableFuture.runAsync(() -> next(op, stop, latency, ops, failure, done));
        });
    }

    /** Rows made as COPY reads them. */
    private static final class RowsReader extends Reader {
        private final long n;
        private final java.util.function.LongFunction<String> row;
        private long i;
        private StringReader current = new StringReader("");

        RowsReader(long n, java.util.function.LongFunction<String> row) {
            this.n = n;
            this.row = row;
        }

        @Override
        public int read(char[] buf, int off, int len) throws java.io.IOException {
            int got = current.read(buf, off, len);
            while (got < 0 && i < n) {
                StringBuilder chunk = new StringBuilder();
                for (int k = 0; k < 1000 && i < n; k++, i++) {
                    chunk.append(row.apply(i));
                }
                current = new StringReader(chunk.toString());
                got = current.read(buf, off, len);
            }
            return got;
        }

        @Override
        public void close() {
        }
    }
}
