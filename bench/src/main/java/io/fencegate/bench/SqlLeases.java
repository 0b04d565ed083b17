package io.fencegate.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Leases from one SQL database alone, on PostgreSQL or on MariaDB (a schema or database of the
 * run's own, dropped at the end): fencegate's {@link SqlLeaseIssuer}, called from blocking threads
 * and with acquires in flight, against ShedLock's JDBC provider, Spring Integration's
 * {@code JdbcLockRegistry} and the floor of two bare statements (claim, release), all on the same
 * database with pools of the same size. On PostgreSQL also the hand-off: release on one issuer
 * instance to grant on another's waiter, with LISTEN/NOTIFY and with polling only.
 */
final class SqlLeases implements AutoCloseable {
    static final String POSTGRES = "Leases: SQL on PostgreSQL";
    static final String MARIADB = "Leases: SQL on MariaDB";
    static final String UNCONTENDED = "uncontended (a lock per worker)";
    static final String HAND_OFF = "hand-off on one lock (release → the other instance's waiter granted)";
    static final String BLOCKING = "fencegate SqlLeaseIssuer (blocking threads)";
    static final String HANDED_OFF = "fencegate SqlLeaseIssuer (blocking threads, each call handed to the issuer's threads)";
    static final String APP_POOL = "fencegate SqlLeaseIssuer on the application's pool (blocking threads)";
    static final String ASYNC = "fencegate SqlLeaseIssuer (async, in flight)";
    static final String SHEDLOCK = "ShedLock JdbcTemplateLockProvider (usingDbTime)";
    static final String REGISTRY = "Spring Integration JdbcLockRegistry";
    static final String FLOOR = "floor: two bare statements";
    static final String NOTIFY = "fencegate SqlLeaseIssuer, LISTEN/NOTIFY";
    static final String POLLING = "fencegate SqlLeaseIssuer, polling only";
    static final int POOL = 16;
    private static final Duration TTL = Duration.ofSeconds(60);

    enum Database { POSTGRES, MARIADB }

    private final Database database;
    private final String name = WriteBenchData.freshNamespace();
    private final String url;
    private final HikariDataSource pool;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final SqlLeaseIssuer issuer;

    SqlLeases(Database database) throws Exception {
        this.database = database;
        if (database == Database.POSTGRES) {
            admin("CREATE SCHEMA " + name);
            url = "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + name;
        } else {
            admin("CREATE DATABASE " + name);
            url = "jdbc:mariadb://127.0.0.1:3306/" + name;
        }
        pool = newPool();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            for (String sql : tables()) {
                s.execute(sql);
            }
        }
        issuer = issuer(true, POOL);
    }

    List<Scenario> scenarios() {
        String section = database == Database.POSTGRES ? POSTGRES : MARIADB;
        List<Scenario> scenarios = new ArrayList<>();
        for (int c : new int[] {1, 16}) {
            scenarios.add(new Scenario(section, UNCONTENDED, "acquire+release", c,
                    List.of(blocking(), handedOff(), onApplicationPool(), async(), shedLock(), registry(), floor())));
        }
        if (database == Database.POSTGRES) {
            // One hand-off at a time: small pools, so the four instances hold few of the server's connections.
            scenarios.add(new Scenario(section, HAND_OFF, "hand-off", 1, List.of(
                    new SqlHandOff(NOTIFY, issuer(true, 2), issuer(true, 2)),
                    new SqlHandOff(POLLING, issuer(false, 2), issuer(false, 2)))));
        }
        scenarios.addAll(MultiLockPairs.scenarios(database == Database.POSTGRES ? "SQL on PostgreSQL" : "SQL on MariaDB", issuer));
        return scenarios;
    }

    /** An issuer with a pool of its own ({@code poolSize} connections and threads, plus LISTEN's), as a gateway has. */
    private SqlLeaseIssuer issuer(boolean notifications, int poolSize) {
        SqlLeaseIssuer i = SqlLeaseIssuer.builder().jdbcUrl(url).user(user()).password("").poolSize(poolSize)
                .notifications(notifications).build();
        owned.add(i);
        return i;
    }

    private LockContender blocking() {
        return blockingOn(BLOCKING, issuer);
    }

    /** Blocking threads, each acquiring and releasing its lock on {@code on} and waiting for the answers. */
    private static LockContender blockingOn(String name, SqlLeaseIssuer on) {
        return new LockContender(name, false, lock -> {
            Lease lease = ZooKeeperLeases.acquired(on, lock);
            if (!on.release(lease.leaseId()).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("lease on " + lock + " was gone at release");
            }
        });
    }

    /**
     * Blocking callers that never run a call themselves: each waits on a future of its own that the
     * issuer's thread completes, as every blocking caller did before callers ran their own calls.
     * The same run's cost of the two thread hand-offs a call.
     */
    private LockContender handedOff() {
        return new LockContender(HANDED_OFF, false, lock -> {
            Lease lease = onIssuersThread(issuer.acquire(lock, TTL, Duration.ofSeconds(60))).orElseThrow(
                    () -> new IllegalStateException("no lease on " + lock));
            if (!onIssuersThread(issuer.release(lease.leaseId()))) {
                throw new IllegalStateException("lease on " + lock + " was gone at release");
            }
        });
    }

    private static <T> T onIssuersThread(CompletionStage<T> call) throws Exception {
        CompletableFuture<T> answer = new CompletableFuture<>();
        call.whenComplete((value, error) -> {
            if (error != null) {
                answer.completeExceptionally(error);
            } else {
                answer.complete(value);
            }
        });
        return answer.get(120, TimeUnit.SECONDS);
    }

    /**
     * The issuer as a Spring application builds it: on the application's own Hikari pool
     * ({@code dataSource(...)}), not on a pool the issuer opens from a JDBC URL.
     */
    private LockContender onApplicationPool() {
        HikariDataSource applicationPool = newPool();
        SqlLeaseIssuer onPool = SqlLeaseIssuer.builder().dataSource(applicationPool).build();
        owned.add(onPool);
        owned.add(applicationPool);
        return blockingOn(APP_POOL, onPool);
    }

    /** A pool of {@link #POOL} connections to the run's schema or database, as an application has. */
    private HikariDataSource newPool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user());
        config.setMaximumPoolSize(POOL);
        return new HikariDataSource(config);
    }

    private AsyncContender async() {
        return new AsyncContender(ASYNC) {
            @Override
            protected CompletionStage<?> op(int slot) {
                String lock = "w" + slot;
                return issuer.acquire(lock, TTL, Duration.ZERO).thenCompose(lease -> issuer.release(lease
                        .orElseThrow(() -> new IllegalStateException("no lease on " + lock)).leaseId()));
            }
        };
    }

    private LockContender shedLock() {
        // usingDbTime(): the database's clock for lock_until, as ShedLock's README advises for several hosts.
        JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(pool)).usingDbTime().build());
        return new LockContender(SHEDLOCK, false, lock -> {
            // ShedLock's own clock (milliseconds), as its executor takes it: a finer createdAt would outlast the unlock.
            SimpleLock held = provider.lock(new LockConfiguration(ClockProvider.now(), lock, TTL, Duration.ZERO))
                    .orElseThrow(() -> new IllegalStateException(SHEDLOCK + ": " + lock + " was held"));
            held.unlock();
        });
    }

    private LockContender registry() {
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        owned.add(repository::close);
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        return new LockContender(REGISTRY, false, key -> {
            Lock lock = registry.obtain(key);
            lock.lock();
            lock.unlock();
        });
    }

    /**
     * The least SQL a fenced lock can be: a claim that raises the lock row's token and answers it,
     * if the row is free or expired, and a release that frees the row. Two statements, autocommit,
     * no history, no waiter line, no restore floor. The release clears the holder rather than
     * deleting the row: a DELETE would take the lock's token with it.
     */
    private LockContender floor() {
        String now = database == Database.POSTGRES ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"
                : "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
        String free = " WHERE lock_key = ? AND (holder IS NULL OR expires_us <= " + now + ")";
        // MariaDB has no UPDATE … RETURNING; LAST_INSERT_ID(expr) puts the new token into the same OK packet.
        String claim = database == Database.POSTGRES
                ? "UPDATE bench_floor SET token = token + 1, holder = ?, expires_us = " + now + " + ?" + free + " RETURNING token"
                : "UPDATE bench_floor SET token = LAST_INSERT_ID(token + 1), holder = ?, expires_us = " + now + " + ?" + free;
        String release = "UPDATE bench_floor SET holder = NULL, expires_us = NULL WHERE lock_key = ? AND holder = ?";
        return new LockContender(FLOOR, false, lock -> {
            String holder = UUID.randomUUID().toString();
            try (Connection c = pool.getConnection()) {
                long token;
                try (PreparedStatement s = database == Database.POSTGRES ? c.prepareStatement(claim)
                        : c.prepareStatement(claim, Statement.RETURN_GENERATED_KEYS)) {
                    s.setString(1, holder);
                    s.setLong(2, TTL.toMillis() * 1000);
                    s.setString(3, lock);
                    token = database == Database.POSTGRES ? firstLong(s.executeQuery())
                            : s.executeUpdate() == 1 ? firstLong(s.getGeneratedKeys()) : 0;
                }
                if (token <= 0) {
                    throw new IllegalStateException(FLOOR + ": " + lock + " was held");
                }
                try (PreparedStatement s = c.prepareStatement(release)) {
                    s.setString(1, lock);
                    s.setString(2, holder);
                    if (s.executeUpdate() != 1) {
                        throw new IllegalStateException(FLOOR + ": " + lock + " was not ours at release");
                    }
                }
            }
        });
    }

    private static long firstLong(ResultSet rs) throws Exception {
        try (rs) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /** ShedLock's, Spring Integration's and the floor's tables, in this database's dialect; the floor's lock rows. */
    private List<String> tables() {
        boolean pg = database == Database.POSTGRES;
        List<String> sql = new ArrayList<>(List.of(
                "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP" + (pg ? "" : "(3)")
                        + " NOT NULL, locked_at TIMESTAMP" + (pg ? "" : "(3)") + " NOT NULL, locked_by VARCHAR(255) NOT NULL)",
                // Spring Integration's own schema-postgresql.sql / schema-mysql.sql for INT_LOCK.
                "CREATE TABLE INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36),"
                        + " CREATED_DATE " + (pg ? "TIMESTAMP" : "DATETIME(6)") + " NOT NULL,"
                        + " CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))",
                "CREATE TABLE bench_floor (lock_key VARCHAR(64) NOT NULL PRIMARY KEY, token BIGINT NOT NULL,"
                        + " holder CHAR(36), expires_us BIGINT)"));
        for (int w = 0; w < POOL; w++) {
            sql.add("INSERT INTO bench_floor (lock_key, token) VALUES ('w" + w + "', 0)");
        }
        return sql;
    }

    private String user() {
        return database == Database.POSTGRES ? "postgres" : "root";
    }

    private void admin(String sql) throws Exception {
        String adminUrl = database == Database.POSTGRES ? "jdbc:postgresql://127.0.0.1:5432/test" : "jdbc:mariadb://127.0.0.1:3306/";
        try (Connection c = DriverManager.getConnection(adminUrl, user(), ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : owned) {
            c.close();
        }
        pool.close();
        admin(database == Database.POSTGRES ? "DROP SCHEMA IF EXISTS " + name + " CASCADE" : "DROP DATABASE IF EXISTS " + name);
    }
}
