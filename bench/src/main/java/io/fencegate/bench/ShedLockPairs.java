package io.fencegate.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import io.fencegate.shedlock.FencedJob;
import io.fencegate.shedlock.FencedLockProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * One ShedLock lock + unlock (what a {@code @SchedulerLock} run costs beside its job), fencegate's
 * {@link FencedLockProvider} (its lease carries a token, and is kept alive while held) against
 * ShedLock's own provider on the same backend: on Redis, the Redis issuer against ShedLock's Redis
 * provider; on PostgreSQL, the SQL issuer against ShedLock's JDBC provider, both in one schema of
 * their own on the shared Postgres, dropped at the end. Every Redis key is under one random prefix,
 * removed at the end.
 */
final class ShedLockPairs implements AutoCloseable {
    static final String SECTION = "ShedLock: lock + unlock";
    private static final String PG_ADMIN = "jdbc:postgresql://127.0.0.1:5432/test";

    private final String prefix = "fencegate-bench-shedlock:" + UUID.randomUUID().toString().substring(0, 8);
    private final String schema = "bench_shedlock_" + UUID.randomUUID().toString().substring(0, 8);
    private final RedisLeaseIssuer issuer;
    private final FencedLockProvider fenced;
    private final JedisConnectionFactory jedis;
    private final HikariDataSource postgres;
    private final SqlLeaseIssuer sqlIssuer;
    private final FencedLockProvider fencedSql;

    ShedLockPairs(Path workDir) throws Exception {
        Files.createDirectories(workDir);
        issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(RedisLeases.URI).keyPrefix(prefix + ":fg:")
                .highWaterMark(new FileTokenHighWaterMark(workDir.resolve("shedlock-tokens.mark"))));
        fenced = new FencedLockProvider(issuer);
        jedis = new JedisConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 6379));
        jedis.afterPropertiesSet();
        jedis.start();
        admin("CREATE SCHEMA " + schema);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(PG_ADMIN + "?currentSchema=" + schema);
        config.setUsername("postgres");
        config.setMaximumPoolSize(16);
        postgres = new HikariDataSource(config);
        try (Connection c = postgres.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP NOT NULL,"
                    + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
        }
        // A pool of its own as large as ShedLock's (16), beside it: the contenders never run at once.
        sqlIssuer = SqlLeaseIssuer.builder().jdbcUrl(PG_ADMIN + "?currentSchema=" + schema).user("postgres")
                .poolSize(16).build();
        fencedSql = new FencedLockProvider(sqlIssuer);
    }

    static final String ON_REDIS = "on Redis, a job name per worker";
    static final String ON_POSTGRES = "on PostgreSQL, a job name per worker";

    List<Scenario> scenarios() {
        String unit = "lock+unlock";
        return List.of(
                new Scenario(SECTION, ON_REDIS, unit, 1, onRedis()),
                new Scenario(SECTION, ON_REDIS, unit, 16, onRedis()),
                new Scenario(SECTION, ON_POSTGRES, unit, 1, onPostgres()),
                new Scenario(SECTION, ON_POSTGRES, unit, 16, onPostgres()));
    }

    private List<Contender> onRedis() {
        return List.of(
                pair("fencegate FencedLockProvider (Redis issuer; token, keep-alive)", fenced, true),
                pair("ShedLock RedisLockProvider (Spring Data Redis, Jedis)",
                        new RedisLockProvider(jedis, "bench", prefix + ":sl"), false));
    }

    private List<Contender> onPostgres() {
        return List.of(
                pair("fencegate FencedLockProvider (SQL issuer; token, keep-alive)", fencedSql, true),
                pair("ShedLock JdbcTemplateLockProvider (Postgres)", new JdbcTemplateLockProvider(
                        JdbcTemplateLockProvider.Configuration.builder()
                                .withJdbcTemplate(new org.springframework.jdbc.core.JdbcTemplate(postgres)).build()), false));
    }

    /** A worker locks its own job name and unlocks it; a refused lock fails the run (nobody else holds it). */
    private static LockContender pair(String name, LockProvider provider, boolean checkToken) {
        return new LockContender(name, false, lock -> {
            // ShedLock's own clock (milliseconds), as its executor takes it: a finer createdAt would outlast the unlock.
            SimpleLock held = provider.lock(new LockConfiguration(ClockProvider.now(), lock, Duration.ofSeconds(30), Duration.ZERO))
                    .orElseThrow(() -> new IllegalStateException(name + ": " + lock + " was held"));
            if (checkToken && FencedJob.token() <= 0) {
                throw new IllegalStateException("no token");
            }
            held.unlock();
        });
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = java.sql.DriverManager.getConnection(PG_ADMIN, "postgres", ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws Exception {
        fenced.close();
        issuer.close();
        fencedSql.close();
        sqlIssuer.close();
        try (var connection = jedis.getConnection()) {
            var keys = connection.keyCommands().keys((prefix + "*").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (keys != null && !keys.isEmpty()) {
                connection.keyCommands().del(keys.toArray(byte[][]::new));
            }
        }
        jedis.destroy();
        postgres.close();
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
}
