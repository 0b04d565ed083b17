package io.fencegate.issuer.redis;

import io.fencegate.issuer.Lease;
import io.fencegate.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The load-insensitive cost of an acquire+release pair, on a redis-server of its own (so its
 * counters see only this traffic): Redis commands and script calls per pair (INFO commandstats),
 * Redis CPU per pair (INFO cpu) and this JVM's CPU per pair, with 1 and 16 threads on distinct
 * locks. Run by hand; not part of the test suite. Args: [pairs per thread count, default 40000]
 */
public final class RedisPairCost {

    private RedisPairCost() { }

    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 40_000;
        Path dir = Files.createTempDirectory("fencegate-pair-cost");
        RedisServer server = RedisServer.start(dir.resolve("redis"));
        RedisClient client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> stats = client.connect();
             RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(server.uri())
                     .keyPrefix("cost:").highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark"))))) {
            for (int threads : new int[] {1, 16, 1, 16}) {
                run(issuer, threads, pairs / 2); // warm-up, and again after the other thread count
                stats.sync().configResetstat();
                double redisCpu0 = redisCpuSeconds(stats);
                long jvmCpu0 = processCpuNanos();
                long switches = run(issuer, threads, pairs);
                long jvmCpu = processCpuNanos() - jvmCpu0;
                double redisCpu = redisCpuSeconds(stats) - redisCpu0;
                String commandstats = stats.sync().info("commandstats");
                long all = 0;
                long scripts = 0;
                for (String line : commandstats.split("\r?\n")) {
                    if (!line.startsWith("cmdstat_") || line.startsWith("cmdstat_info:") || line.startsWith("cmdstat_config")) {
                        continue;
                    }
                    long calls = Long.parseLong(line.replaceAll("^cmdstat_[^:]+:calls=(\\d+),.*", "$1"));
                    all += calls;
                    if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                        scripts += calls;
                    }
                }
                System.out.printf("threads=%d pairs=%d commands/pair=%.2f scriptcalls/pair=%.3f jvm-cpu us/pair=%.1f "
                                + "redis-cpu us/pair=%.1f jvm-context-switches/pair=%.1f%n", threads, pairs, all / (double) pairs,
                        scripts / (double) pairs, jvmCpu / 1000.0 / pairs, redisCpu * 1e6 / pairs, switches / (double) pairs);
            }
        } finally {
            client.shutdown();
            server.kill();
        }
    }

    private static double redisCpuSeconds(StatefulRedisConnection<String, String> stats) {
        double total = 0;
        for (String line : stats.sync().info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                total += Double.parseDouble(line.substring(line.indexOf(':') + 1));
            }
        }
        return total;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Answers the JVM's voluntary context switches (thread wake-ups) during the run, from /proc. */
    private static long run(RedisLeaseIssuer issuer, int threads, int pairs) throws Exception {
        long switches0 = voluntarySwitches();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String lock = "cost-" + t;
            int mine = pairs / threads;
            done.add(pool.submit(() -> {
                for (int i = 0; i < mine; i++) {
                    Lease lease = issuer.acquire(lock, Duration.ofSeconds(10), Duration.ZERO)
                            .toCompletableFuture().get(5, TimeUnit.SECONDS).orElseThrow();
                    issuer.release(lease.leaseId()).toCompletableFuture().get(5, TimeUnit.SECONDS);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        long switches = voluntarySwitches() - switches0;
        pool.shutdown();
        return switches;
    }

    private static long voluntarySwitches() throws java.io.IOException {
        long total = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            total += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (java.io.IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return total;
    }
}
