package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The issuer as a library in any JVM application: on the application's own pool, which it leaves
 * open; refusing a pool whose connections are not in auto-commit (its transactions are its own);
 * and failing every call with IssuerUnavailableException, promptly, once the database is gone.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqlLibraryUseIT {

    @Test
    void anApplicationsOwnPoolServesLeasesAndStaysOpenAfterTheIssuerCloses() throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(SqlTestDatabase.Kind.MARIADB); HikariDataSource pool = pool(db, true)) {
            try (SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().dataSource(pool).build()) {
                Lease lease = issuer.acquire("orders/42", Duration.ofSeconds(10), Duration.ofSeconds(2)).toCompletableFuture()
                        .get(20, TimeUnit.SECONDS).orElseThrow();
                assertThat(issuer.wasGranted("orders/42", lease.token()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
                assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(pool.isClosed()).isFalse();
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertThat(s.execute("SELECT 1")).isTrue();
            }
        }
    }

    /**
     * On the application's pool (auto-commit on) a transaction ends by switching auto-commit back
     * on, which commits it (no COMMIT of its own): every grant, read lease, permit and release must
     * be seen by another instance on its own pool at once.
     */
    @ParameterizedTest
    @EnumSource(value = SqlTestDatabase.Kind.class, names = {"POSTGRES", "MARIADB", "H2"})
    void transactionsOnTheApplicationsPoolAreCommittedForEveryOtherInstance(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind); HikariDataSource appPool = pool(db, true);
                HikariDataSource otherPool = pool(db, true);
                SqlLeaseIssuer app = SqlLeaseIssuer.builder().dataSource(appPool).build();
                SqlLeaseIssuer other = SqlLeaseIssuer.builder().dataSource(otherPool).build()) {
            Duration ttl = Duration.ofSeconds(30);
            Lease write = app.acquire("orders/7", ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(other.acquire("orders/7", ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS)).isEmpty();
            assertThat(other.wasGranted("orders/7", write.token()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(app.release(write.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            Lease next = other.acquire("orders/7", ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(next.token()).isGreaterThan(write.token());

            Lease read = app.acquire("reports/7", LeaseMode.READ, ttl, Duration.ZERO, Duration.ZERO).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(other.acquire("reports/7", ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS)).isEmpty();
            Lease permit = app.acquirePermit("pumps", 1, ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS)
                    .orElseThrow();
            assertThat(other.acquirePermit("pumps", 1, ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS)).isEmpty();
            assertThat(app.release(read.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(app.release(permit.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(other.acquire("reports/7", ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS)).isPresent();
            assertThat(other.acquirePermit("pumps", 1, ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS)).isPresent();
        }
    }

    /** The snippet of docs/library.md on read leases and permits, as printed there. */
    @Test
    void readLeasesAndPermitsAsTheLibraryPageShowsThem() throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(SqlTestDatabase.Kind.H2); HikariDataSource pool = pool(db, true)) {
            LeaseIssuer issuer = SqlLeaseIssuer.builder().dataSource(pool).build();
            Duration ttl = Duration.ofSeconds(10);
            Optional<Lease> read = issuer.acquire("reports/2026", LeaseMode.READ, ttl, Duration.ofSeconds(2), Duration.ZERO)
                    .toCompletableFuture().join();      // shared with other readers
            Optional<Lease> write = issuer.acquire("reports/2026", LeaseMode.WRITE, ttl, Duration.ZERO, Duration.ZERO)
                    .toCompletableFuture().join();      // empty: a read lease holds the lock
            issuer.release(read.get().leaseId()).toCompletableFuture().join();

            // At most 3 holders at once; the 4th waits up to 2 s, then gets empty.
            Optional<Lease> permit = issuer.acquirePermit("workers", 3, ttl, Duration.ofSeconds(2))
                    .toCompletableFuture().join();
            if (permit.isPresent()) {
                int slot = permit.get().slot();          // 0, 1 or 2
                String slotLock = permit.get().lock();   // "workers/" + slot: its token guards that slot's items
                // ... renew, release and watch it as any lease ...
                issuer.release(permit.get().leaseId()).toCompletableFuture().join();
            }
            assertThat(permit).get().extracting(Lease::slot).isEqualTo(0);
            assertThat(permit.get().lock()).isEqualTo("workers/0");
            assertThat(issuer.wasReleased(permit.get()).toCompletableFuture().join()).isTrue();
            assertThat(write).isEmpty();
            assertThat(issuer.grantedMode("reports/2026", read.get().token()).toCompletableFuture().join()).contains(LeaseMode.READ);
            issuer.close();
        }
    }

    @Test
    void aPoolWhoseConnectionsAreNotInAutoCommitIsRefused() throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(SqlTestDatabase.Kind.H2); HikariDataSource pool = pool(db, false)) {
            assertThatThrownBy(() -> SqlLeaseIssuer.builder().dataSource(pool).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auto-commit");
        }
    }

    @Test
    void onceTheDatabaseIsGoneEveryCallFailsWithIssuerUnavailablePromptly() throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(SqlTestDatabase.Kind.H2)) {
            SqlLeaseIssuer issuer = db.issuer().connectTimeout(Duration.ofSeconds(1)).build();
            Lease lease = issuer.acquire("gone", Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS).orElseThrow();
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
            long start = System.nanoTime();
            assertUnavailable(() -> issuer.acquire("other", Duration.ofSeconds(30), Duration.ofSeconds(2)));
            assertUnavailable(() -> issuer.renew(lease.leaseId()));
            assertUnavailable(() -> issuer.release(lease.leaseId()));
            assertUnavailable(() -> issuer.wasGranted("gone", lease.token() + 1));
            assertUnavailable(() -> issuer.list("", null, 10));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
            issuer.close();
        }
    }

    private static void assertUnavailable(Supplier<? extends CompletionStage<?>> call) {
        assertThatThrownBy(() -> call.get().toCompletableFuture().get(20, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(IssuerUnavailableException.class);
    }

    private static HikariDataSource pool(SqlTestDatabase db, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setPassword("");
        config.setMaximumPoolSize(6);
        config.setAutoCommit(autoCommit);
        return new HikariDataSource(config);
    }
}
