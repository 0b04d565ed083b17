package io.fencegate.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import io.fencegate.shedlock.FencedLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The load-insensitive cost of one ShedLock lock + unlock, the shedlock group's contenders side by
 * side: Redis commands and Redis CPU per pair (INFO commandstats, INFO cpu), PostgreSQL statements
 * per pair (pg_stat_statements) and this JVM's CPU per pair, with 1 and 16 threads on distinct job
 * names. The servers must be this tool's alone, or other traffic counts too. Run by hand:
 *
 * <pre>
 * redis-server --port 6391 --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir /tmp/r
 * initdb -D /tmp/pg -U postgres --auth=trust   # as postgres; then pg_ctl -D /tmp/pg -o "-p 5499
 *   -k /tmp/pg -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements" start
 * java -cp bench/target/classes:$(cat bench/target/classpath.txt) io.fencegate.bench.ShedLockPairCost \
 *   redis://127.0.0.1:6391 jdbc:postgresql://127.0.0.1:5499/postgres [pairs, default 8000]
 * </pre>
 */
public final class ShedLockPairCost {
    private ShedLockPairCost() {}

    public static void main(String[] args) throws Exception {
        String redisUri = args[0];
        String pgUrl = args[1];
        int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 8000;
        RedisURIParts redisAt = RedisURIParts.of(redisUri);
        RedisClient client = RedisClient.create(redisUri);
        try (StatefulRedisConnection<String, String> stats = client.connect();
             RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(redisUri)
                     // a prefix per run: each run brings a new mark, and Redis refuses a second mark on one prefix
                     .keyPrefix("cost-" + java.util.UUID.randomUUID() + ":")
                     .highWaterMark(new FileTokenHighWaterMark(Files.createTempDirectory("shedlock-cost").resolve("mark"))));
             FencedLockProvider fenced = new FencedLockProvider(issuer)) {
            JedisConnectionFactory jedis = new JedisConnectionFactory(new RedisStandaloneConfiguration(redisAt.host, redisAt.port));
            jedis.afterPropertiesSet();
            jedis.start();
            admin(pgUrl, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            admin(pgUrl, "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP NOT NULL,"
                    + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(pgUrl);
            config.setUsername("postgres");
            config.setMaximumPoolSize(16);
            try (HikariDataSource pool = new HikariDataSource(config);
                 SqlLeaseIssuer sqlIssuer = SqlLeaseIssuer.builder().jdbcUrl(pgUrl).user("postgres").poolSize(16).build();
                 FencedLockProvider fencedSql = new FencedLockProvider(sqlIssuer)) {
                LockProvider shedLockRedis = new RedisLockProvider(jedis, "cost", "cost-sl");
                LockProvider shedLockJdbc = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new org.springframework.jdbc.core.JdbcTemplate(pool)).build());
                // Every contender warms up first (JIT), so none is measured while another compiles.
                for (int threads : new int[] {1, 16}) {
                    for (LockProvider p : List.of(fenced, shedLockRedis, fencedSql, shedLockJdbc)) {
                        run(p, "warm", threads, p == fencedSql || p == shedLockJdbc ? pairs / 4 : pairs);
                    }
                }
                for (int threads : new int[] {1, 16}) {
                    onRedis("fencegate FencedLockProvider (Redis issuer)", fenced, stats.sync(), threads, pairs);
                    onRedis("ShedLock RedisLockProvider", shedLockRedis, stats.sync(), threads, pairs);
                    onPostgres("fencegate FencedLockProvider (SQL issuer)", fencedSql, pgUrl, threads, pairs / 4);
                    onPostgres("ShedLock JdbcTemplateLockProvider", shedLockJdbc, pgUrl, threads, pairs / 4);
                }
            } finally {
                jedis.destroy();
            }
        } finally {
            client.shutdown();
        }
    }

    private record RedisURIParts(String host, int port) {
        static RedisURIParts of(String uri) {
            var parsed = io.lettuce.core.RedisURI.create(uri);
            return new RedisURIParts(parsed.getHost(), parsed.getPort());
        }
    }

    private static void onRedis(String name, LockProvider provider, RedisCommands<String, String> redis, int threads, int pairs)
            throws Exception {
        redis.configResetstat();
        double cpu0 = redisCpuSeconds(redis);
        long jvm0 = processCpuNanos();
        run(provider, "m", threads, pairs);
        long jvm = processCpuNanos() - jvm0;
        double cpu = redisCpuSeconds(redis) - cpu0;
        long commands = 0;
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info") && !line.startsWith("cmdstat_config")) {
                commands += Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
            }
        }
        System.out.printf("%s, %d thread(s): %.2f Redis commands, %.1f µs Redis CPU, %.0f µs JVM CPU a pair%n",
                name, threads, (double) commands / pairs, cpu * 1e6 / pairs, jvm / 1e3 / pairs);
    }

    private static void onPostgres(String name, LockProvider provider, String pgUrl, int threads, int pairs) throws Exception {
        admin(pgUrl, "SELECT pg_stat_statements_reset()");
        long jvm0 = processCpuNanos();
        run(provider, "m", threads, pairs);
        long jvm = processCpuNanos() - jvm0;
        long statements = 0;
        try (Connection c = DriverManager.getConnection(pgUrl, "postgres", ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT sum(calls) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'")) {
            rs.next();
            statements = rs.getLong(1);
        }
        System.out.printf("%s, %d thread(s): %.2f statements (BEGIN counted, COMMIT not), %.0f µs JVM CPU a pair%n",
                name, threads, (double) statements / pairs, jvm / 1e3 / pairs);
    }

    /** {@code pairs} lock + unlock pairs over {@code threads} workers, each on its own job name. */
    private static void run(LockProvider provider, String prefix, int threads, int pairs) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String job = prefix + "-w" + t;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < pairs / threads; i++) {
                        provider.lock(new LockConfiguration(ClockProvider.now(), job, Duration.ofSeconds(30), Duration.ZERO))
                                .orElseThrow(() -> new IllegalStateException(job + " was held")).unlock();
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    private static double redisCpuSeconds(RedisCommands<String, String> redis) {
        double seconds = 0;
        for (String line : redis.info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return seconds;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void admin(String url, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
