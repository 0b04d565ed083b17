package io.fencegate.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.testing.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.drivers.TracerDriver;

/**
 * Round trips one read-lease or permit acquire+release costs each contender of {@link ReadWriteLeases},
 * counted, not timed: one at a time, {@code ops} after a warm-up. ZooKeeper: the requests Curator
 * sent (its tracer, by operation; all ZooKeeper contenders share its session). Redis, on a
 * redis-server of its own: the commands clients sent (MONITOR lines outside scripts). SQL: the
 * statements, commits and rollbacks the issuer's connections sent ({@link RoundTripCountingDataSource}).
 * Background work (expiry checks, pollers) lands in the counts too, a little.
 * Run by hand: {@code java -cp bench/target/classes:$(cat bench/target/classpath.txt)
 * io.fencegate.bench.ReadWriteCost [ops, default 300]}.
 */
public final class ReadWriteCost {
    private static final int WARM_UP = 30;

    private ReadWriteCost() {}

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        Path dir = Files.createTempDirectory("fencegate-rw-cost");
        RedisServer redis = RedisServer.start(dir.resolve("redis"));
        List<HikariDataSource> pools = new ArrayList<>();
        List<RoundTripCountingDataSource> sql = new ArrayList<>();
        try (ReadWriteLeases rw = new ReadWriteLeases(dir.resolve("work"), redis.uri(), url -> {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setUsername("postgres");
            config.setMaximumPoolSize(SqlLeases.POOL + 1);
            HikariDataSource pool = new HikariDataSource(config);
            pools.add(pool);
            RoundTripCountingDataSource counting = new RoundTripCountingDataSource(pool);
            sql.add(counting);
            return counting.dataSource();
        })) {
            Map<String, AtomicLong> traced = new TreeMap<>();
            rw.curator().getZookeeperClient().setTracerDriver(new TracerDriver() {
                @Override
                public void addTrace(String name, long time, TimeUnit unit) {
                    synchronized (traced) {
                        traced.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
                    }
                }

                @Override
                public void addCount(String name, int increment) { }
            });
            for (Scenario s : rw.scenarios()) {
                if (s.concurrency() != 1) {
                    continue;
                }
                for (Contender c : s.contenders()) {
                    AsyncContender contender = (AsyncContender) c;
                    for (int i = 0; i < WARM_UP; i++) {
                        contender.op(0).toCompletableFuture().get(60, TimeUnit.SECONDS);
                    }
                    synchronized (traced) {
                        traced.clear();
                    }
                    long sql0 = sql.get(0).trips();
                    RedisMonitor monitor = RedisMonitor.start(redis, dir.resolve("monitor.log"));
                    for (int i = 0; i < ops; i++) {
                        contender.op(0).toCompletableFuture().get(60, TimeUnit.SECONDS);
                    }
                    Map<String, Long> sent = monitor.stop();
                    double sqlTrips = (sql.get(0).trips() - sql0) / (double) ops;
                    Map<String, Double> zk = new TreeMap<>();
                    synchronized (traced) {
                        traced.forEach((k, v) -> zk.put(k, Math.round(100.0 * v.get() / ops) / 100.0));
                    }
                    // Again without MONITOR: Redis's own time an operation.
                    RedisMonitor.resetStats(redis);
                    for (int i = 0; i < ops; i++) {
                        contender.op(0).toCompletableFuture().get(60, TimeUnit.SECONDS);
                    }
                    double redisMicros = RedisMonitor.commandMicros(redis).values().stream().mapToLong(Long::longValue).sum() / (double) ops;
                    double zkTotal = zk.values().stream().mapToDouble(Double::doubleValue).sum();
                    double redisTotal = sent.entrySet().stream().filter(e -> !e.getKey().startsWith("lua:"))
                            .mapToLong(Map.Entry::getValue).sum() / (double) ops;
                    Map<String, Double> redisEach = new TreeMap<>();
                    sent.forEach((k, v) -> redisEach.put(k, Math.round(100.0 * v / ops) / 100.0));
                    System.out.printf("%s | %s | zookeeper requests/op %.2f %s | redis round trips/op %.2f %s, server µs/op %.1f"
                                    + " | sql round trips/op %.2f%n", s.title(), c.name(), zkTotal, zk, redisTotal, redisEach, redisMicros,
                            sqlTrips);
                }
            }
        } finally {
            pools.forEach(HikariDataSource::close);
            redis.kill();
        }
        System.exit(0); // Redisson's and Curator's threads
    }
}
