package io.fencegate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs every comparison and writes the report. {@code ./bench/run} is the command; the arguments:
 * {@code --profile full|smoke} (default full), {@code --out FILE} (default docs/BENCHMARKS.md),
 * {@code --only zookeeper,redis,sql,gateway,client,batch,transfer,multilock,python-node,library,shedlock,readwrite} (default all
 * but client, batch, transfer and multilock: parts of other groups, to run alone).
 */
public final class BenchMain {
    /**
     * {@code client} is the gateway group's Java client scenario alone, {@code batch} its batched writes
     * (the batch route through the batching Java client, against pgbench) alone, {@code transfer} its two-item
     * transfer alone, {@code multilock} the MultiLock scenarios of the zookeeper, redis and sql groups alone.
     */
    static final List<String> GROUPS = List.of("zookeeper", "redis", "sql", "gateway", "client", "batch", "transfer", "multilock",
            "python-node", "library", "shedlock", "readwrite");

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        if (String.join(" ", args).matches("(.* )?--profile scale( .*)?")) {
            ScaleRun.main(args); // its own curves and arguments (ScaleRun)
            return;
        }
        Profile profile = Profile.FULL;
        Path out = Path.of("docs/BENCHMARKS.md");
        Set<String> only = Set.of("zookeeper", "redis", "sql", "gateway", "python-node", "library", "shedlock", "readwrite");
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--profile" -> profile = Profile.named(require(args[i], value));
                case "--out" -> out = Path.of(require(args[i], value));
                case "--only" -> only = Set.of(require(args[i], value).split(","));
                default -> {
                    System.err.println("usage: bench/run [--profile full|smoke] [--out docs/BENCHMARKS.md] [--only "
                            + String.join(",", GROUPS) + "]\n       bench/run --profile scale (bench/run --help for its options)"
                            + "\nunknown argument: " + args[i]);
                    System.exit(2);
                }
            }
            i++;
        }
        for (String g : only) {
            if (!GROUPS.contains(g)) {
                System.err.println("--only: unknown group '" + g + "', expected some of " + GROUPS);
                System.exit(2);
            }
        }
        run(profile, out, only, "./bench/run" + (args.length == 0 ? "" : " " + String.join(" ", args)));
    }

    /** The checkout this runs in: the working directory or the nearest folder above it that holds the clients. */
    static Path checkout() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("clients/typescript")) && Files.isDirectory(p.resolve("bench"))) {
                return p;
            }
        }
        return here;
    }

    private static String require(String flag, String value) {
        if (value == null) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return value;
    }

    /** Runs the groups and writes the report; answers the scenarios, each with its samples. */
    public static List<Scenario> run(Profile profile, Path out, Set<String> groups, String command) throws Exception {
        Map<String, String> machine = MachineFacts.machine();
        Map<String, String> versions = MachineFacts.versions();
        Path work = Files.createTempDirectory("fencegate-bench");
        List<Scenario> all = new ArrayList<>();
        boolean multi = groups.contains("multilock");
        if (groups.contains("zookeeper") || multi) {
            try (ZooKeeperLeases zk = new ZooKeeperLeases()) {
                all.addAll(runAll(profile, part(zk.scenarios(), groups.contains("zookeeper"), MultiLockPairs.SECTION)));
            }
        }
        if (groups.contains("redis") || multi) {
            try (RedisLeases redis = new RedisLeases(work.resolve("redis"))) {
                all.addAll(runAll(profile, part(redis.scenarios(), groups.contains("redis"), MultiLockPairs.SECTION)));
            }
        }
        if (groups.contains("sql") || multi) {
            for (SqlLeases.Database database : SqlLeases.Database.values()) {
                try (SqlLeases sql = new SqlLeases(database)) {
                    all.addAll(runAll(profile, part(sql.scenarios(), groups.contains("sql"), MultiLockPairs.SECTION)));
                }
            }
        }
        if (groups.contains("gateway") || groups.contains("client") || groups.contains("batch") || groups.contains("transfer")) {
            try (GatewayWrites gateway = new GatewayWrites(work.resolve("gateway"), profile.jitWarmUp())) {
                all.addAll(runAll(profile, part(gateway.scenarios(), groups.contains("gateway"),
                        groups.contains("client") ? GatewayWrites.CLIENT : null,
                        groups.contains("batch") ? GatewayWrites.BATCHES : null,
                        groups.contains("transfer") ? GatewayTransfers.SECTION : null)));
            }
        }
        if (groups.contains("python-node")) {
            // The clients and scripts are in the checkout: bench/run works from its root, a test from bench/.
            try (ClientLanguages languages = new ClientLanguages(work.resolve("python-node"), checkout())) {
                all.addAll(runAll(profile, languages.scenarios()));
            }
        }
        if (groups.contains("library")) {
            try (LibraryWrites library = new LibraryWrites(work.resolve("library"))) {
                all.addAll(runAll(profile, library.scenarios()));
            }
        }
        if (groups.contains("shedlock")) {
            try (ShedLockPairs shedlock = new ShedLockPairs(work.resolve("shedlock"))) {
                all.addAll(runAll(profile, shedlock.scenarios()));
            }
        }
        if (groups.contains("readwrite")) {
            try (ReadWriteLeases readWrite = new ReadWriteLeases(work.resolve("readwrite"))) {
                all.addAll(runAll(profile, readWrite.scenarios()));
            }
        }
        new Report(profile, all, machine, versions, MachineFacts.loadAverage(), command).write(out);
        System.err.println("bench: wrote " + out.toAbsolutePath());
        return all;
    }

    /** All of a group's scenarios ({@code whole}), or only those of the sections named (nulls ignored). */
    private static List<Scenario> part(List<Scenario> scenarios, boolean whole, String... sections) {
        List<String> wanted = java.util.Arrays.stream(sections).filter(java.util.Objects::nonNull).toList();
        return whole ? scenarios : scenarios.stream().filter(s -> wanted.contains(s.section())).toList();
    }

    /**
     * Runs every contender of every scenario once, unrecorded, before any is measured: code that only
     * runs at one concurrency or in one call shape (a batch of many calls, 16 blocked threads) is
     * compiled before its first measured sample, not during it. Without this, whichever shape ran
     * first in a fresh JVM paid the JIT, and on a busy machine that halved its figure.
     */
    private static void warmEveryShape(Profile profile, List<Scenario> scenarios) throws Exception {
        for (Scenario s : scenarios) {
            for (Contender c : s.contenders()) {
                c.measure(s.concurrency(), Duration.ZERO, profile.warmUp().multipliedBy(2));
            }
        }
    }

    /**
     * Each scenario in turn; within it, each repetition runs every contender once, starting one
     * further along each time, so no contender always runs first (warm caches) or last.
     */
    private static List<Scenario> runAll(Profile profile, List<Scenario> scenarios) throws Exception {
        warmEveryShape(profile, scenarios);
        for (Scenario s : scenarios) {
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < s.contenders().size(); i++) {
                order.add(i);
            }
            for (int rep = 0; rep < profile.repetitions(); rep++) {
                for (int i : order) {
                    Contender c = s.contenders().get(i);
                    Sample sample = c.measure(s.concurrency(), profile.warmUp(), profile.measure());
                    s.samples().get(i).add(sample);
                    // The load average with each sample: a scenario measured on a busier machine shows it.
                    System.err.printf("bench: %s | %s c=%d | %s | rep %d: %.0f ops/s, p99 %.2f ms (load average %s)%n",
                            s.section(), s.title(), s.concurrency(), c.name(), rep + 1, sample.throughput(), sample.p99Millis(),
                            MachineFacts.loadAverage());
                }
                Collections.rotate(order, -1);
            }
        }
        return scenarios;
    }
}
