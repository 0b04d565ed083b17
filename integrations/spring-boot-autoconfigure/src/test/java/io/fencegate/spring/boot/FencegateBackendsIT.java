package io.fencegate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseGroup;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.MultiLock;
import io.fencegate.spring.integration.FencedLockRegistry;
import io.fencegate.spring.integration.FencedMultiLock;
import io.fencegate.spring.integration.FencedPermit;
import io.fencegate.spring.integration.FencedReadWriteLock;
import io.fencegate.spring.integration.FencedSemaphore;
import io.fencegate.store.Executed;
import io.fencegate.store.ExecutedAll;
import io.fencegate.store.KeysResult;
import io.fencegate.store.Refused;
import io.fencegate.store.Stale;
import io.fencegate.store.StatementResult;
import io.fencegate.store.jdbc.GuardRowTransactions;
import io.fencegate.store.jdbc.TokenColumnGuard;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jooq.JooqAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Beans that connect, against the real servers: ZooKeeper (TestingServer), Redis, Postgres, MariaDB. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FencegateBackendsIT {
    private static TestingServer zookeeper;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencegateClientAutoConfiguration.class,
                    FencegateIssuerAutoConfiguration.class, FencegateZooKeeperIssuerAutoConfiguration.class,
                    FencegateRedisIssuerAutoConfiguration.class, FencegateSqlIssuerAutoConfiguration.class,
                    FencegateJdbcAutoConfiguration.class,
                    FencegateHealthAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zookeeper.close();
    }

    @Test
    void zookeeperIssuerGrantsIncreasingTokensIsHealthyAndMeasuresByPrefixOnly() {
        runner.withPropertyValues("fencegate.issuer.backend=zookeeper",
                "fencegate.issuer.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "fencegate.issuer.zookeeper.root=/fg-boot-" + ThreadLocalRandom.current().nextInt(1 << 30))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    long first = holdAndRelease(context, "report/2026-11-27");
                    long second = holdAndRelease(context, "report/2026-11-28");
                    assertThat(second).isGreaterThan(first);
                    assertIssuerHealthUp(context);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("fencegate.lease.acquire").tag("prefix", "report").tag("outcome", "acquired")
                            .timer().count()).isEqualTo(2);
                    assertThat(meters.get("fencegate.lease.held").tag("prefix", "report").timer().count()).isEqualTo(2);
                    assertThat(meters.getMeters()).allSatisfy(m ->
                            assertThat(m.getId().getTags().toString()).doesNotContain("2026-11-2"));
                });
    }

    @Test
    void aLeaseThatRunsOutIsCountedAsLostWithItsReason() {
        runner.withPropertyValues("fencegate.issuer.backend=zookeeper",
                "fencegate.issuer.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "fencegate.issuer.zookeeper.root=/fg-boot-" + ThreadLocalRandom.current().nextInt(1 << 30))
                .run(context -> {
                    LeaseIssuer issuer = context.getBean(LeaseIssuer.class);
                    issuer.acquire("job/nightly", Duration.ofMillis(300), Duration.ZERO).toCompletableFuture()
                            .get(10, TimeUnit.SECONDS).orElseThrow();
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
                            meters.find("fencegate.lease.lost").tag("prefix", "job").tag("reason", "expired").counter() != null);
                });
    }

    @Test
    void redisIssuerWithAFileMarkGrantsAndIsHealthy(@TempDir Path dir) throws Exception {
        String prefix = "fg-boot-" + ThreadLocalRandom.current().nextInt(1 << 30) + ":";
        try {
            runner.withPropertyValues("fencegate.issuer.backend=redis", "fencegate.issuer.redis.uri=redis://127.0.0.1:6379",
                    "fencegate.issuer.redis.key-prefix=" + prefix,
                    "fencegate.issuer.redis.high-water-mark-file=" + dir.resolve("mark"))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(holdAndRelease(context, "orders/1")).isPositive();
                        assertIssuerHealthUp(context);
                    });
            assertThat(Files.exists(dir.resolve("mark"))).isTrue();
        } finally {
            deleteRedisKeys(prefix);
        }
    }

    @Test
    void redisIssuerKeepsItsMarkInTheApplicationsPostgres() throws Exception {
        String prefix = "fg-boot-" + ThreadLocalRandom.current().nextInt(1 << 30) + ":";
        try (TestDatabases db = TestDatabases.postgres("fg_boot_mark")) {
            runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=postgres",
                            "fencegate.issuer.backend=redis", "fencegate.issuer.redis.uri=redis://127.0.0.1:6379",
                            "fencegate.issuer.redis.key-prefix=" + prefix, "fencegate.issuer.redis.high-water-mark-table=true")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(holdAndRelease(context, "orders/1")).isPositive();
                        DSLContext sql = DSL.using(context.getBean(javax.sql.DataSource.class), org.jooq.SQLDialect.POSTGRES);
                        assertThat(sql.fetchValue("SELECT mark FROM fencegate_token_mark WHERE name = ?", prefix))
                                .isNotNull();
                    });
        } finally {
            deleteRedisKeys(prefix);
        }
    }

    @Test
    void sqlIssuerOnTheApplicationsPostgresGrantsIncreasingTokensBesideTheGuardAndIsHealthy() throws Exception {
        try (TestDatabases db = TestDatabases.postgres("fg_spring_sql")) {
            runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=postgres",
                            "fencegate.issuer.backend=sql", "fencegate.issuer.sql.pool-size=2",
                            "fencegate.issuer.sql.instance-name=spring-it")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(((MeteredLeaseIssuer) context.getBean(LeaseIssuer.class)).delegate())
                                .isInstanceOf(io.fencegate.issuer.sql.SqlLeaseIssuer.class);
                        long first = holdAndRelease(context, "report/1");
                        long second = holdAndRelease(context, "report/1");
                        assertThat(second).isGreaterThan(first);
                        assertIssuerHealthUp(context);
                        // The issuer's tables and the guard's live in the application's own schema.
                        DSLContext sql = DSL.using(context.getBean(javax.sql.DataSource.class), org.jooq.SQLDialect.POSTGRES);
                        assertThat(sql.fetchValue("SELECT count(*) FROM information_schema.tables WHERE table_schema = ?"
                                + " AND table_name IN ('fencegate_lock_fence', 'fencegate_fence')", db.name())).isEqualTo(2L);
                        staleTokenIsRefusedByBothShapes(context, org.jooq.SQLDialect.POSTGRES);
                    });
        }
    }

    @Test
    void aSchemaOfFencegatesOwnThatTheConnectionsDoNotSearchStopsTheStartNamingTheProperty() throws Exception {
        try (TestDatabases db = TestDatabases.postgres("fg_spring_schema")) {
            String own = db.name() + "_fg";
            try {
                runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                        .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=postgres",
                                "fencegate.jdbc.schema=" + own)
                        .run(context -> assertThat(context).getFailure().rootCause()
                                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                                .hasMessageContaining("fencegate.jdbc.schema").hasMessageContaining("currentSchema=public," + own));
                // On the search path, after the application's own schema: fencegate's tables go there, none into the application's.
                runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                        .withPropertyValues("spring.datasource.url=" + db.jdbcUrl() + "," + own, "spring.datasource.username=postgres",
                                "fencegate.jdbc.schema=" + own, "fencegate.issuer.backend=sql", "fencegate.issuer.sql.pool-size=2")
                        .run(context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(holdAndRelease(context, "report/1")).isPositive();
                            DSLContext sql = DSL.using(context.getBean(javax.sql.DataSource.class), org.jooq.SQLDialect.POSTGRES);
                            assertThat(sql.fetchValue("SELECT count(*) FROM information_schema.tables WHERE table_schema = ?"
                                    + " AND table_name IN ('fencegate_lock_fence', 'fencegate_fence')", own)).isEqualTo(2L);
                            assertThat(sql.fetchValue("SELECT count(*) FROM information_schema.tables WHERE table_schema = ?",
                                    db.name())).isEqualTo(0L);
                            staleTokenIsRefusedByBothShapes(context, org.jooq.SQLDialect.POSTGRES);
                        });
            } finally {
                db.admin("DROP SCHEMA IF EXISTS " + own + " CASCADE");
            }
        }
    }

    @Test
    void sqlIssuerWithItsOwnPoolOnMariaDbGrantsAndIsHealthy() throws Exception {
        try (TestDatabases db = TestDatabases.mariadb("fg_spring_sql")) {
            runner.withPropertyValues("fencegate.issuer.backend=sql", "fencegate.issuer.sql.jdbc-url=" + db.jdbcUrl(),
                            "fencegate.issuer.sql.username=root", "fencegate.issuer.sql.pool-size=2")
                    .run(context -> {
                        assertThat(context).hasNotFailed().doesNotHaveBean(javax.sql.DataSource.class);
                        long first = holdAndRelease(context, "orders/7");
                        assertThat(holdAndRelease(context, "orders/7")).isGreaterThan(first);
                        assertIssuerHealthUp(context);
                    });
        }
    }

    @Test
    void aSqlIssuerWhoseDatabaseIsDownIsReportedDown() throws Exception {
        // Health on a live issuer whose pool lost its database: the listing fails within the bound.
        try (TestDatabases db = TestDatabases.mariadb("fg_spring_sql")) {
            runner.withPropertyValues("fencegate.issuer.backend=sql", "fencegate.issuer.sql.jdbc-url=" + db.jdbcUrl(),
                            "fencegate.issuer.sql.username=root", "fencegate.issuer.sql.statement-timeout=2s")
                    .run(context -> {
                        assertIssuerHealthUp(context);
                        db.admin("DROP DATABASE " + db.name());
                        HealthIndicator health = context.getBean("fencegateIssuerHealthIndicator", HealthIndicator.class);
                        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                    });
        }
    }

    @Test
    void guardBeansOnPostgresRefuseAStaleTokenAndGuardSeveralKeysUnderTheMultiLockBean() throws Exception {
        try (TestDatabases db = TestDatabases.postgres("fg_boot_jdbc")) {
            runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                            FencegateIntegrationAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=postgres",
                            "fencegate.issuer.backend=zookeeper",
                            "fencegate.issuer.zookeeper.connect-string=" + zookeeper.getConnectString(),
                            "fencegate.issuer.zookeeper.root=/fg-boot-" + ThreadLocalRandom.current().nextInt(1 << 30))
                    .run(context -> {
                        staleTokenIsRefusedByBothShapes(context, org.jooq.SQLDialect.POSTGRES);
                        paymentsAcrossTwoKeysUnderTheMultiLockBeanAndTheRegistry(context);
                    });
        }
    }

    @Test
    void guardBeansOnMariaDbThroughTheApplicationsJooqRefuseAStaleToken() throws Exception {
        try (TestDatabases db = TestDatabases.mariadb("fg_boot_jdbc")) {
            runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                            DataSourceTransactionManagerAutoConfiguration.class, JooqAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=root")
                    .run(context -> {
                        assertThat(context).hasSingleBean(DSLContext.class); // Boot's own, used by the guard beans
                        staleTokenIsRefusedByBothShapes(context, org.jooq.SQLDialect.MARIADB);
                    });
        }
    }

    @Test
    void theRegistryBeanOnTheSqlIssuerGivesReadWriteLocksAndSemaphorePermitsWhoseTokensTheGuardTakes() throws Exception {
        try (TestDatabases db = TestDatabases.postgres("fg_boot_rw")) {
            runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                            FencegateIntegrationAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=postgres",
                            "fencegate.issuer.backend=sql", "fencegate.issuer.sql.pool-size=2")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        readWriteLockAndSemaphoreUnderTheRegistryBean(context);
                    });
        }
    }

    /** The docs' snippet: a read-write lock and a semaphore's permit from the registry bean, the permit guarding its slot's row. */
    private static void readWriteLockAndSemaphoreUnderTheRegistryBean(AssertableApplicationContext context) throws Exception {
        DSLContext sql = DSL.using(context.getBean(javax.sql.DataSource.class), org.jooq.SQLDialect.POSTGRES);
        sql.execute("CREATE TABLE export_slot (slot INT PRIMARY KEY, runs INT NOT NULL)");
        sql.execute("INSERT INTO export_slot VALUES (0, 0), (1, 0), (2, 0), (3, 0)");
        FencedLockRegistry registry = context.getBean(FencedLockRegistry.class);
        GuardRowTransactions guarded = context.getBean(GuardRowTransactions.class);

        // --- snippet: read-write lock and semaphore ---
        FencedReadWriteLock report = registry.readWriteLock("reports/q3");
        report.readLock().lock();             // shared with every other reader, in any process
        long readToken;
        try {
            readToken = report.readLock().token();   // for fenced reads; never writes
        } finally {
            report.readLock().unlock();
        }
        report.writeLock().lock();            // exclusive: the registry's FencedLock of the key
        long writeToken;
        try {
            writeToken = report.writeLock().token();
        } finally {
            report.writeLock().unlock();
        }

        FencedSemaphore exports = registry.semaphore("exports", 4);   // at most 4 holders at once
        StatementResult ran;
        int slot;
        try (FencedPermit permit = exports.acquire()) {     // or tryAcquire(wait): Optional
            slot = permit.slot();                            // 0..3; its lock is "exports/" + slot
            ran = guarded.run(permit.lock(), permit.token(), tx ->
                    tx.execute("UPDATE export_slot SET runs = runs + 1 WHERE slot = ?", permit.slot()));
        }
        // --- end of snippet ---
        assertThat(writeToken).as("every grant takes the lock's next token").isGreaterThan(readToken);
        assertThat(ran).isInstanceOf(Executed.class);
        assertThat(sql.fetchValue("SELECT runs FROM export_slot WHERE slot = ?", slot)).isEqualTo(1);
        // The slot's next holder fences the permit's token out of the slot's guard row.
        try (FencedPermit next = exports.tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
            List<Integer> slots = new java.util.ArrayList<>(List.of(next.slot()));
            FencedPermit[] others = new FencedPermit[3];
            for (int i = 0; i < 3; i++) {
                others[i] = exports.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
                slots.add(others[i].slot());
            }
            assertThat(slots).containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(exports.tryAcquire(Duration.ofMillis(200))).as("all 4 permits are held").isEmpty();
            FencedPermit sameSlot = next.slot() == slot ? next
                    : java.util.Arrays.stream(others).filter(p -> p.slot() == slot).findFirst().orElseThrow();
            StatementResult again = guarded.run(sameSlot.lock(), sameSlot.token(), tx -> 0);
            assertThat(again).isInstanceOf(Executed.class);
            long before = ((Executed) again).previousToken();   // the permit's of the snippet
            assertThat(before).isPositive().isLessThan(sameSlot.token());
            assertThat(guarded.run(sameSlot.lock(), before, tx -> 0)).as("the slot's older holder is refused").isInstanceOf(Stale.class);
            for (FencedPermit other : others) {
                other.release();
            }
        }
    }

    /**
     * The MultiLock bean and the registry's obtainAll on one issuer, each guarding a payment
     * across two accounts with the GuardRowTransactions bean: every key under its own token.
     */
    private static void paymentsAcrossTwoKeysUnderTheMultiLockBeanAndTheRegistry(AssertableApplicationContext context) {
        DSLContext sql = DSL.using(context.getBean(javax.sql.DataSource.class), org.jooq.SQLDialect.POSTGRES);
        sql.execute("CREATE TABLE account (owner VARCHAR(32) PRIMARY KEY, balance BIGINT NOT NULL)");
        sql.execute("INSERT INTO account VALUES ('alice', 100), ('bob', 0)");
        MultiLock multiLock = context.getBean(MultiLock.class);
        GuardRowTransactions guarded = context.getBean(GuardRowTransactions.class);

        // --- snippet: the MultiLock bean ---
        LeaseGroup group = multiLock.acquire(List.of("accounts/bob", "accounts/alice"),
                Duration.ofSeconds(30), Duration.ofSeconds(5)).toCompletableFuture().join().orElseThrow();
        KeysResult paid;
        try {
            paid = guarded.runAll(group.tokens(), tx ->   // each account's guard row, its own token
                    tx.execute("UPDATE account SET balance = balance - 30 WHERE owner = 'alice'")
                            + tx.execute("UPDATE account SET balance = balance + 30 WHERE owner = 'bob'"));
        } finally {
            multiLock.release(group).toCompletableFuture().join();
        }
        // --- end of snippet ---
        assertThat(paid).isInstanceOf(ExecutedAll.class);

        FencedLockRegistry registry = context.getBean(FencedLockRegistry.class);
        // --- snippet: the registry's obtainAll ---
        FencedMultiLock lock = registry.obtainAll(List.of("accounts/bob", "accounts/alice"));
        lock.lock();                          // every key's lease, or none
        try {
            paid = guarded.runAll(lock.tokens(), tx ->
                    tx.execute("UPDATE account SET balance = balance + 10 WHERE owner = 'alice'")
                            + tx.execute("UPDATE account SET balance = balance - 10 WHERE owner = 'bob'"));
        } finally {
            lock.unlock();
        }
        // --- end of snippet ---
        assertThat(paid).isInstanceOf(ExecutedAll.class);
        assertThat(sql.fetchValue("SELECT string_agg(owner || '=' || balance, ',' ORDER BY owner) FROM account"))
                .isEqualTo("alice=80,bob=20");
        // Both took their tokens from the same locks: the older group is now refused on both keys.
        assertThat(guarded.runAll(group.tokens(), tx -> 0)).isInstanceOfSatisfying(Refused.class,
                refused -> assertThat(refused.items()).extracting(Refused.Item::key)
                        .containsExactly("accounts/alice", "accounts/bob"));
    }

    private static void staleTokenIsRefusedByBothShapes(AssertableApplicationContext context, org.jooq.SQLDialect dialect) {
        assertThat(context).hasNotFailed();
        DSLContext sql = DSL.using(context.getBean(javax.sql.DataSource.class), dialect);
        sql.execute("CREATE TABLE report (id INT PRIMARY KEY, val VARCHAR(32), token BIGINT NOT NULL)");
        sql.execute("INSERT INTO report VALUES (1, 'none', 0)");
        GuardRowTransactions guarded = context.getBean(GuardRowTransactions.class);
        StatementResult newer = guarded.run("report/1", 7, tx -> tx.execute("UPDATE report SET val = 'seven' WHERE id = 1"));
        StatementResult older = guarded.run("report/1", 5, tx -> tx.execute("UPDATE report SET val = 'five' WHERE id = 1"));
        assertThat(newer).isInstanceOf(Executed.class);
        assertThat(older).isInstanceOf(Stale.class);

        TokenColumnGuard guard = context.getBean(TokenColumnGuard.class);
        var table = DSL.table(DSL.name("report"));
        var val = DSL.field(DSL.name("val"), String.class);
        var id = DSL.field(DSL.name("id"), Integer.class);
        int applied = sql.update(table).set(val, "nine").set(guard.advanceTo(9)).where(id.eq(1)).and(guard.admits(9)).execute();
        int refused = sql.update(table).set(val, "eight").set(guard.advanceTo(8)).where(id.eq(1)).and(guard.admits(8)).execute();
        assertThat(List.of(applied, refused)).containsExactly(1, 0);
        assertThat(sql.fetchValue("SELECT val FROM report WHERE id = 1")).isEqualTo("nine");
    }

    private static long holdAndRelease(AssertableApplicationContext context, String lock) throws Exception {
        LeaseIssuer issuer = context.getBean(LeaseIssuer.class);
        Optional<Lease> lease = issuer.acquire(lock, Duration.ofSeconds(10), Duration.ofSeconds(5)).toCompletableFuture()
                .get(15, TimeUnit.SECONDS);
        assertThat(lease).isPresent();
        assertThat(issuer.release(lease.get().leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        return lease.get().token();
    }

    private static void assertIssuerHealthUp(AssertableApplicationContext context) {
        HealthIndicator health = context.getBean("fencegateIssuerHealthIndicator", HealthIndicator.class);
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    }

    private static void deleteRedisKeys(String prefix) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            List<String> keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            client.shutdown();
        }
    }
}
