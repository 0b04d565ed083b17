package io.fencegate.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The rolling switch from ShedLock's JdbcTemplateLockProvider to the fenced provider, on the real
 * PostgreSQL (a schema of its own): an old instance (ShedLock's row only), a switching one (the row,
 * then the lease) and a switched one (the lease only), each with providers of its own as separate
 * processes would have. Each step's pair of neighbours never runs the job at the same time.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SwitchingLockProviderIT {
    private static final String ADMIN = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final String JOB = "nightly-report";
    private final String schema = "fg_shedlock_switch_" + Integer.toHexString(ThreadLocalRandom.current().nextInt() & 0x7fffffff);
    private final List<AutoCloseable> opened = new ArrayList<>();
    private PGSimpleDataSource dataSource;

    @BeforeEach
    void open() throws Exception {
        admin("CREATE SCHEMA " + schema);
        admin("CREATE TABLE " + schema + ".shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP NOT NULL,"
                + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
        dataSource = new PGSimpleDataSource();
        dataSource.setURL(ADMIN + "?currentSchema=" + schema);
        dataSource.setUser("postgres");
    }

    @AfterEach
    void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    @Test
    void eachStepExcludesTheInstancesOfTheStepBeforeAndTakesTheLeasesToken() {
        LockProvider old = shedLocks();
        SwitchingLockProvider switching = switching();
        FencedLockProvider switched = fenced();

        SimpleLock oldRun = old.lock(config()).orElseThrow();
        assertThat(switching.lock(config())).as("the old instance runs the job").isEmpty();
        oldRun.unlock();

        SimpleLock switchingRun = switching.lock(config()).orElseThrow();
        long token = FencedJob.token();
        assertThat(token).isPositive();
        assertThat(old.lock(config())).as("the switching instance holds ShedLock's row").isEmpty();
        assertThat(switched.lock(config())).as("and the lease").isEmpty();
        switchingRun.unlock();

        SimpleLock switchedRun = switched.lock(config()).orElseThrow();
        assertThat(FencedJob.token()).isGreaterThan(token);
        assertThat(switching.lock(config())).as("the switched instance holds the lease").isEmpty();
        // The switching instance gave ShedLock's row back when it found the lease taken.
        SimpleLock oldAgain = old.lock(config()).orElseThrow(() -> new AssertionError("the row was kept"));
        oldAgain.unlock();
        switchedRun.unlock();
    }

    @Test
    void oldAndSwitchingInstancesSideBySideNeverRunTogether() throws Exception {
        assertNoOverlap(shedLocks(), switching());
    }

    @Test
    void switchingAndSwitchedInstancesSideBySideNeverRunTogether() throws Exception {
        assertNoOverlap(switching(), fenced());
    }

    /**
     * Two instances, each warmed up by one run, try the job in a loop until both ran it five times;
     * a run that finds another inside fails the test. Each pauses after its own run, so the other
     * gets its turns.
     */
    private static void assertNoOverlap(LockProvider first, LockProvider second) throws Exception {
        for (LockProvider provider : List.of(first, second)) {
            provider.lock(config()).orElseThrow().unlock();
        }
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger[] ran = {new AtomicInteger(), new AtomicInteger()};
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        ExecutorService instances = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> runs = new ArrayList<>();
            List<LockProvider> providers = List.of(first, second);
            for (int i = 0; i < 2; i++) {
                LockProvider provider = providers.get(i);
                AtomicInteger mine = ran[i];
                runs.add(instances.submit(() -> {
                    while ((ran[0].get() < 5 || ran[1].get() < 5) && System.nanoTime() < until) {
                        Optional<SimpleLock> lock = provider.lock(config());
                        if (lock.isEmpty()) {
                            Thread.sleep(3);
                            continue;
                        }
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            Thread.sleep(100); // the job: long enough that two unexcluded instances meet
                            mine.incrementAndGet();
                        } finally {
                            inside.decrementAndGet();
                            lock.get().unlock();
                        }
                        Thread.sleep(30);
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(60, TimeUnit.SECONDS);
            }
        } finally {
            instances.shutdownNow();
        }
        assertThat(ran[0].get()).as("the first instance's runs").isGreaterThanOrEqualTo(5);
        assertThat(ran[1].get()).as("the second instance's runs").isGreaterThanOrEqualTo(5);
        assertThat(overlaps).as("runs that found another run inside").hasValue(0);
    }

    private static LockConfiguration config() {
        return new LockConfiguration(Instant.now(), JOB, Duration.ofSeconds(10), Duration.ZERO);
    }

    private LockProvider shedLocks() {
        return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(dataSource)).usingDbTime().build());
    }

    private FencedLockProvider fenced() {
        FencedLockProvider provider = new FencedLockProvider(issuer());
        opened.add(provider);
        return provider;
    }

    private SwitchingLockProvider switching() {
        SwitchingLockProvider provider = lockProvider(dataSource, issuer());
        opened.add(provider);
        return provider;
    }

    /** An instance of its own: its issuer, its pool. */
    private LeaseIssuer issuer() {
        SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().jdbcUrl(ADMIN + "?currentSchema=" + schema).user("postgres").poolSize(2).build();
        opened.add(issuer);
        return issuer;
    }

    /** The switching bean as docs/spring.md shows it. */
    static SwitchingLockProvider lockProvider(DataSource dataSource, LeaseIssuer issuer) {
        return new SwitchingLockProvider(
                new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new JdbcTemplate(dataSource)).usingDbTime().build()),
                new FencedLockProvider(issuer));
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(ADMIN, "postgres", ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
