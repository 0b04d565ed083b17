package io.fencegate.bench;

import io.fencegate.client.FencegateClient;
import io.fencegate.testing.GatewayProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code ./bench/run --profile scale}: how cost grows with the work, one curve a concern, each
 * summed up by one ratio or flatness figure from this run. Writes the scale section of
 * docs/BENCHMARKS.md ({@link ScaleReport}) with a chart a curve. Arguments: {@code --out FILE},
 * {@code --only locks,items,waiters,watchers,values}, {@code --locks 1000,100000,1000000} and
 * {@code --items 10000,10000000} (the sizes of those two curves; the defaults are the targets'), {@code --forget
 * 180} (the locks' idle time in seconds).
 */
public final class ScaleRun {
    static final List<String> CURVES = List.of("locks", "items", "waiters", "watchers", "values");
    static final long[] LOCKS = {1_000, 100_000, 1_000_000};
    static final long[] ITEMS = {10_000, 10_000_000};
    static final int[] WAITERS = {1, 16, 64, 256};
    static final int[] WATCHERS = {0, 10, 100, 1000};
    static final int[] VALUES = {100, 10 * 1024, 1024 * 1024, 16 * 1024 * 1024};
    /** The locks' idle time (forgetIdleLocksAfter, the Redis grant retention): longer than the fill, so all are there at once. */
    static final Duration FORGET_AFTER = Duration.ofMinutes(3);
    /** The ZooKeeper child's heap: a million idle locks are three million znodes. */
    static final String ZOOKEEPER_HEAP = "3g";

    /** Sizes and windows of one run; {@link #tiny()} is BenchSmokeIT's. */
    record Sizes(long[] locks, long[] items, int[] waiters, int[] watchers, int[] values, Duration window, int burst,
                 Duration forget) {
        static Sizes full(long[] locks, long[] items, Duration forget) {
            return new Sizes(locks, items, WAITERS, WATCHERS, VALUES, Duration.ofSeconds(3), 64, forget);
        }

        static Sizes tiny() {
            return new Sizes(new long[] {50, 200}, new long[] {100, 1000}, new int[] {1, 4}, new int[] {0, 3},
                    new int[] {100, 64 * 1024}, Duration.ofMillis(300), 4, Duration.ofSeconds(2));
        }
    }

    private ScaleRun() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of("docs/BENCHMARKS.md");
        Set<String> only = new LinkedHashSet<>(CURVES);
        long[] locks = LOCKS;
        long[] items = ITEMS;
        Duration forget = FORGET_AFTER;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--profile" -> { }
                case "--out" -> out = Path.of(value);
                case "--only" -> only = new LinkedHashSet<>(Arrays.asList(value.split(",")));
                case "--locks" -> locks = Arrays.stream(value.split(",")).mapToLong(Long::parseLong).toArray();
                case "--items" -> items = Arrays.stream(value.split(",")).mapToLong(Long::parseLong).toArray();
                case "--forget" -> forget = Duration.ofSeconds(Long.parseLong(value));
                default -> {
                    System.err.println("usage: bench/run --profile scale [--out docs/BENCHMARKS.md] [--only "
                            + String.join(",", CURVES) + "] [--locks 1000,100000,1000000] [--items 10000,10000000] [--forget 180]\nunknown argument: " + args[i]);
                    System.exit(2);
                }
            }
            i++;
        }
        if (!CURVES.containsAll(only)) {
            System.err.println("--only: expected some of " + CURVES + ", got " + only);
            System.exit(2);
        }
        run(out, only, Sizes.full(locks, items, forget), "./bench/run " + String.join(" ", args));
    }

    /** Runs the curves in {@code only} and writes the scale section of {@code out}. */
    public static void run(Path out, Set<String> only, Sizes sizes, String command) throws Exception {
        Path work = Files.createTempDirectory("fencegate-scale");
        try {
            run(out, only, sizes, command, work);
        } finally {
            // The value curve's files store alone leaves about 2 GB here.
            try (java.util.stream.Stream<Path> files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static void run(Path out, Set<String> only, Sizes sizes, String command, Path work) throws Exception {
        long started = System.nanoTime();
        String loadAtStart = MachineFacts.loadAverage();
        ScaleReport report = new ScaleReport(out);
        // Written after every curve: a later curve that fails leaves the earlier ones' figures.
        ScaleSections sections = new ScaleSections(report, () -> report.write(out));
        try (ZooKeeperChild zookeeper = ZooKeeperChild.start(ZOOKEEPER_HEAP)) {
            ZooKeeperFacts facts = new ZooKeeperFacts(zookeeper.port());
            if (only.contains("locks")) {
                // Redis fills first, then ZooKeeper while Redis's keys age: the issuer's heap per lock
                // is each one's own (the Redis issuer keeps nothing per lock), the idle times overlap.
                long self = ProcessHandle.current().pid();
                try (DistinctLocks.Run zk = DistinctLocks.zookeeper(zookeeper, facts, sizes.forget());
                     DistinctLocks.Run redis = DistinctLocks.redis(work, sizes.forget())) {
                    zk.warmUp();
                    redis.warmUp();
                    long heapBefore = ProcessMemory.heapAfterGc(self); // both issuers made and warm
                    redis.fill(sizes.locks());
                    zk.fill(sizes.locks());
                    List<DistinctLocks.Curve> curves = List.of(zk.finish(), redis.finish());
                    sections.locks(curves, heapBefore, ProcessMemory.heapAfterGc(self), ProcessMemory.rss(self, false));
                }
            }
            if (only.contains("items")) {
                sections.items(ItemsPerStore.run(sizes.items(), sizes.window().multipliedBy(2), work));
            }
            if (only.contains("waiters") || only.contains("watchers") || only.contains("values")) {
                gatewayCurves(only, sizes, work, zookeeper, facts, sections);
            }
        }
        long minutes = Math.round((System.nanoTime() - started) / 60e9);
        sections.measured(only, "Measured by `" + command + "` on " + java.time.LocalDate.now(java.time.ZoneOffset.UTC)
                + " (sizes: locks " + Arrays.toString(sizes.locks()) + ", items " + Arrays.toString(sizes.items())
                + "; " + minutes + " min for " + String.join(", ", only) + "; load average " + loadAtStart
                + " at the start, " + MachineFacts.loadAverage() + " at the end, on "
                + Runtime.getRuntime().availableProcessors() + " CPUs).");
        report.write(out);
        System.err.println("bench scale: wrote " + out.toAbsolutePath());
    }

    private static void gatewayCurves(Set<String> only, Sizes sizes, Path work, ZooKeeperChild zookeeper,
                                      ZooKeeperFacts facts, ScaleSections sections) throws Exception {
        String schema = WriteBenchData.freshNamespace();
        try (Connection pg = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             Statement s = pg.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            s.execute("CREATE TABLE " + schema + ".plain (resource VARCHAR PRIMARY KEY, val BYTEA, token BIGINT NOT NULL)");
        }
        Path a = work.resolve("gateway-a");
        Path b = work.resolve("gateway-b");
        try (GatewayProcess one = BenchGateway.start(config(a, zookeeper, "files", schema), Files.createDirectories(a));
             GatewayProcess two = only.contains("waiters")
                     ? BenchGateway.start(config(b, zookeeper, "files2", null), Files.createDirectories(b)) : null) {
            FencegateClient client = FencegateClient.builder(one.uri()).timeout(Duration.ofSeconds(60)).build();
            long heap0 = ProcessMemory.heapAfterGc(one.pid());
            long rss0 = ProcessMemory.rss(one.pid(), false);
            if (only.contains("waiters")) {
                FencegateClient other = FencegateClient.builder(two.uri()).timeout(Duration.ofSeconds(60)).build();
                List<LockWaiters.Point> points = new ArrayList<>();
                LockWaiters.warmUp(List.of(client, other));
                for (List<FencegateClient> gateways : List.of(List.of(client), List.of(client, other))) {
                    for (int n : sizes.waiters()) {
                        points.add(LockWaiters.run(gateways, n, facts));
                    }
                }
                int impatient = sizes.waiters()[sizes.waiters().length - 1];
                sections.waiters(points, impatient, LockWaiters.watchesLeftByWaitersThatGaveUp(client, impatient, facts));
            }
            if (only.contains("watchers")) {
                List<LeaseWatchers.Point> points = new ArrayList<>();
                for (int n : sizes.watchers()) {
                    points.add(LeaseWatchers.run(one.uri(), one.pid(), client, facts, n));
                }
                sections.watchers(points);
            }
            long heap1 = ProcessMemory.heapAfterGc(one.pid());
            long rss1 = ProcessMemory.rss(one.pid(), false);
            if (only.contains("values")) {
                long token = client.acquire("values", Duration.ofHours(1), Duration.ZERO).orElseThrow().token();
                List<ValueSizes.Point> points = ValueSizes.run(client, token, work.resolve("plain-files"),
                        schema + ".plain", sizes.values(), sizes.window());
                long heap2 = ProcessMemory.heapAfterGc(one.pid());
                ValueSizes.Burst burst = ValueSizes.burst(one.uri(), one.pid(), token, sizes.burst(),
                        sizes.values()[sizes.values().length - 1]);
                sections.values(points, burst, heap2);
            }
            sections.gatewayMemory(heap0, rss0, heap1, rss1, facts.znodes(), facts.watches(),
                    ProcessMemory.heapAfterGc(zookeeper.pid()), ProcessMemory.rss(zookeeper.pid(), false),
                    DistinctLocks.redisUsedMemory());
        } finally {
            try (Connection pg = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
                 Statement s = pg.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    private static Path config(Path dir, ZooKeeperChild zookeeper, String filesStore, String pgSchema) throws Exception {
        Files.createDirectories(dir.resolve("files"));
        StringBuilder yaml = new StringBuilder()
                .append("issuer:\n  type: zookeeper\n  connectString: \"").append(zookeeper.connectString())
                .append("\"\nstores:\n  ").append(filesStore).append(":\n    type: files\n    dir: \"")
                .append(dir.resolve("files")).append("\"\n    rule: same-lease\n    lock: values\n");
        if (pgSchema != null) {
            yaml.append("  pg:\n    type: postgres\n    database: test\n    schema: ").append(pgSchema)
                    .append("\n    user: postgres\n    poolSize: 8\n    rule: same-lease\n    lock: values\n");
        }
        Path config = dir.resolve("fencegate.yaml");
        Files.createDirectories(dir);
        Files.writeString(config, yaml.toString());
        return config;
    }

    static String fmt(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }
}
