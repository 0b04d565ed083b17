package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseMode;
import java.nio.charset.StandardCharsets;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The SQL issuer on a database server whose wall clock steps, hours either way, as NTP or an
 * operator steps a real one, and whose tables are restored from a logical backup: no token is
 * handed out twice or goes down, no lock has two live holders, no dead lease or waiter blocks a
 * lock for the length of a step, and where the issuer cannot tell (a step no gateway watched) it
 * fails closed, says why and recovers by itself. One server of the test's own per database, under
 * libfaketime ({@link SteppedDatabaseServer}); H2 has no server clock to step.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SqlDatabaseClockStepIT {

    private static final Map<SteppedDatabaseServer.Kind, SteppedDatabaseServer> SERVERS = new EnumMap<>(SteppedDatabaseServer.Kind.class);

    private static synchronized SteppedDatabaseServer server(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer server = SERVERS.get(kind);
        if (server == null) {
            server = SteppedDatabaseServer.start(kind);
            SERVERS.put(kind, server);
        }
        server.offset(0);
        return server;
    }

    @AfterAll
    static void stop() throws Exception {
        for (SteppedDatabaseServer server : SERVERS.values()) {
            server.close();
        }
    }

    /** The story: granted while the clock ran an hour ahead, NTP put it right, a backup, three grants, the backup restored. */
    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void aRestoreOfABackupTakenAfterTheClockSteppedBackHandsOutNoTokenAgain(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer db = server(kind);
        String lock = "restore/" + UUID.randomUUID();
        db.offset(3600);
        List<Long> lost = new ArrayList<>();
        Path backup;
        try (SqlLeaseIssuer gateway = db.issuer().build()) {
            long first = grantAndRelease(gateway, lock);
            db.offset(0); // NTP steps the server's clock back to the true time
            Thread.sleep(2500); // the gateway reads the clock once a second
            backup = db.dump("after-the-step");
            long last = first;
            for (int i = 0; i < 3; i++) {
                long token = grantAndRelease(gateway, lock);
                assertThat(token).isGreaterThan(last);
                lost.add(token);
                last = token;
            }
        }
        db.restore(backup);
        try (SqlLeaseIssuer fresh = db.issuer().build()) { // a gateway started after the restore: no memory
            long last = lost.get(lost.size() - 1);
            for (int i = 0; i < 3; i++) {
                long token = grantAndRelease(fresh, lock);
                assertThat(token).as("grant %d after the restore; tokens lost with it: %s", i, lost).isGreaterThan(last);
                last = token;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void aForwardStepNeverGivesASecondHolderALiveLease(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer db = server(kind);
        String lock = "forward/" + UUID.randomUUID();
        try (SqlLeaseIssuer holderGateway = db.issuer().build(); SqlLeaseIssuer other = db.issuer().build()) {
            Lease held = acquire(holderGateway, lock, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
            db.offset(120);
            assertThat(acquire(other, lock, Duration.ofSeconds(5), Duration.ZERO)).as("at once after a +120 s step").isEmpty();
            Thread.sleep(1500); // both gateways have read the stepped clock since
            assertThat(acquire(other, lock, Duration.ofSeconds(5), Duration.ZERO)).as("after the step was seen").isEmpty();
            assertThat(holderGateway.renew(held.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS))
                    .as("the holder renews its lease").isPresent();
            assertThat(holderGateway.release(held.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(acquire(other, lock, Duration.ofSeconds(5), Duration.ZERO).orElseThrow().token()).isGreaterThan(held.token());
        }
    }

    /**
     * A step too small to tell from a slow round trip (under the clock watch's 250 ms tolerance) is
     * taken for the clock's course, so it moves every lease's end that much closer: a lease's expiry
     * lies a margin past its ttl (see {@link LeaseTables#keptUs}), so no lock, read lease or permit
     * is granted to another caller before its holder's deadline.
     */
    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void aStepTooSmallToSeeEndsNoLeaseEarly(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer db = server(kind);
        String lock = "small-step/" + UUID.randomUUID();
        Duration ttl = Duration.ofSeconds(2);
        try (SqlLeaseIssuer holderGateway = db.issuer().build(); SqlLeaseIssuer other = db.issuer().build()) {
            acquire(other, lock, ttl, Duration.ZERO).orElseThrow(); // the other gateway has read the clock before the step
            Lease write = acquire(holderGateway, lock + "/w", ttl, Duration.ZERO).orElseThrow();
            Lease read = holderGateway.acquire(lock + "/r", LeaseMode.READ, ttl, Duration.ZERO, Duration.ZERO)
                    .toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
            Lease permit = holderGateway.acquirePermit(lock + "/p", 1, ttl, Duration.ZERO).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS).orElseThrow();
            db.offsetMillis(200);
            long deadline = List.of(write, read, permit).stream().mapToLong(Lease::startedAtNanos).min().orElseThrow()
                    + ttl.toNanos();
            while (System.nanoTime() < deadline) {
                long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                assertThat(acquire(other, lock + "/w", ttl, Duration.ZERO)).as("write lease, %d ms before its deadline", leftMs)
                        .isEmpty();
                assertThat(acquire(other, lock + "/r", ttl, Duration.ZERO)).as("read lease, %d ms before its deadline", leftMs)
                        .isEmpty();
                assertThat(other.acquirePermit(lock + "/p", 1, ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS))
                        .as("permit, %d ms before its deadline", leftMs).isEmpty();
                Thread.sleep(50);
            }
        }
    }

    /**
     * A reader's release frees the lock only when no other read lease is live: judged by a clock
     * stepped ahead that no gateway has seen yet, the other reader's lease looks over, and a write
     * lease would be granted beside it.
     */
    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void aForwardStepNobodySawYetNeverFreesALockAReaderStillHolds(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer db = server(kind);
        for (int round = 0; round < 3; round++) {
            String lock = "forward/read/" + UUID.randomUUID();
            try (SqlLeaseIssuer readers = db.issuer().build(); SqlLeaseIssuer writers = db.issuer().build()) {
                // The leaving reader's lease outlasts the step, so its release goes ahead; the staying one's does not.
                Lease leaving = read(readers, lock, Duration.ofMinutes(10));
                Lease staying = read(readers, lock, Duration.ofSeconds(30));
                db.offset(120 + 60 * round);
                // At once, before either gateway's once-a-second reading can see the step.
                readers.release(leaving.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS);
                assertThat(acquire(writers, lock, Duration.ofSeconds(5), Duration.ZERO))
                        .as("a write lease beside the live read lease %s", staying.token()).isEmpty();
                Thread.sleep(1500); // both gateways have read the stepped clock since
                assertThat(acquire(writers, lock, Duration.ofSeconds(5), Duration.ZERO))
                        .as("a write lease beside the live read lease, after the step was seen").isEmpty();
                assertThat(readers.renew(staying.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS))
                        .as("the staying reader renews its lease").isPresent();
            }
        }
    }

    /** The minute's sweep of dead rows, run on a clock stepped ahead that no gateway has seen yet, deletes no live read lease. */
    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void aSweepOnAForwardStepNobodySawYetKeepsLiveReadLeases(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer db = server(kind);
        String lock = "forward/sweep/" + UUID.randomUUID();
        try (SqlLeaseIssuer readers = db.issuer().build(); SqlLeaseIssuer writers = db.issuer().build()) {
            Lease leaving = read(readers, lock, Duration.ofMinutes(30));
            Lease staying = read(readers, lock, Duration.ofSeconds(30));
            db.offset(900);
            writers.sweep(); // at once, before either gateway's once-a-second reading can see the step
            Thread.sleep(1500); // both gateways have read the stepped clock since
            assertThat(readers.renew(staying.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS))
                    .as("the staying reader renews its lease").isPresent();
            readers.release(leaving.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertThat(acquire(writers, lock, Duration.ofSeconds(5), Duration.ZERO))
                    .as("a write lease beside the live read lease %s", staying.token()).isEmpty();
        }
    }

    /**
     * A grant judges by one clock reading and writes the lease in the next statements: a step back
     * between them (made here at the moment the grant's UPDATE is prepared) must not write an expiry
     * that is already past once the step is corrected, or the lock goes to a second holder.
     */
    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void aStepBackBetweenAGrantsReadingAndItsWriteNeverShortensTheLease(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer db = server(kind);
        String readLock = "between/read/" + UUID.randomUUID();
        String writeLock = "between/write/" + UUID.randomUUID();
        AtomicReference<String> stepBefore = new AtomicReference<>();
        try (HikariDataSource pool = pool(db); SqlLeaseIssuer holders = SqlLeaseIssuer.builder().dataSource(steppingBefore(pool, db, stepBefore)).build();
             SqlLeaseIssuer others = db.issuer().build()) {
            // A read grant always runs the transaction.
            stepBefore.set("UPDATE fencegate_lock_fence SET token = ?, token_read = TRUE");
            Lease reader = read(holders, readLock, Duration.ofSeconds(30));
            assertThat(stepBefore.get()).as("the step was made").isNull();
            Thread.sleep(1500); // both gateways have read the stepped clock since
            assertThat(acquire(others, readLock, Duration.ofSeconds(5), Duration.ZERO))
                    .as("a write lease beside the live read lease %s", reader.token()).isEmpty();

            // A write grant runs the transaction for a caller in line: one waits while the lock is held, then it is released.
            db.offset(0);
            Thread.sleep(1500);
            Lease first = acquire(holders, writeLock, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
            var waiting = holders.acquire(writeLock, Duration.ofSeconds(30), Duration.ofSeconds(30)).toCompletableFuture();
            Thread.sleep(500); // in line
            stepBefore.set("UPDATE fencegate_lock_fence SET token = ?, secret = ?");
            assertThat(holders.release(first.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            Lease second = waiting.get(60, TimeUnit.SECONDS).orElseThrow();
            assertThat(stepBefore.get()).as("the step was made").isNull();
            Thread.sleep(1500);
            assertThat(acquire(others, writeLock, Duration.ofSeconds(5), Duration.ZERO))
                    .as("a second write lease beside %s", second.token()).isEmpty();
        }
    }

    private static HikariDataSource pool(SteppedDatabaseServer db) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(db.url());
        pool.setUsername(db.user());
        pool.setPassword("");
        pool.setMaximumPoolSize(3);
        return pool;
    }

    /** {@code pool}, stepping the server's clock an hour back just before a statement starting with {@code stepBefore}'s text is prepared (once). */
    private static DataSource steppingBefore(DataSource pool, SteppedDatabaseServer db, AtomicReference<String> stepBefore) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (ds, m, args) -> {
            Object result = invoke(pool, m, args);
            if (!(result instanceof Connection c)) {
                return result;
            }
            return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (conn, cm, cargs) -> {
                String prefix = stepBefore.get();
                if (cm.getName().equals("prepareStatement") && prefix != null && ((String) cargs[0]).startsWith(prefix)
                        && stepBefore.compareAndSet(prefix, null)) {
                    db.offset(-3600);
                }
                return invoke(c, cm, cargs);
            });
        });
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void aBackwardStepBlocksNeitherADeadHoldersShortLeaseNorADeadWaitersLockForItsLength(SteppedDatabaseServer.Kind kind)
            throws Exception {
        SteppedDatabaseServer db = server(kind);
        String shortLease = "back/lease/" + UUID.randomUUID();
        String waitedFor = "back/waiter/" + UUID.randomUUID();
        try (SqlLeaseIssuer gone = db.issuer().build(); SqlLeaseIssuer gateway = db.issuer().build()) {
            // A holder that is gone: its 2 s lease is never renewed nor released.
            Lease dead = acquire(gone, shortLease, Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
            long freed = grantAndRelease(gateway, waitedFor);
            deadWaiter(db, waitedFor); // what a gateway that died while waiting leaves: a row that lives 3 s
            db.offset(-3600);
            long start = System.nanoTime();
            Lease next = acquire(gateway, shortLease, Duration.ofSeconds(5), Duration.ofSeconds(20))
                    .orElseThrow(() -> new AssertionError("a dead 2 s lease held its lock 20 s after a -1 h step"));
            assertThat(next.token()).isGreaterThan(dead.token());
            Lease afterWaiter = acquire(gateway, waitedFor, Duration.ofSeconds(5), Duration.ofSeconds(20))
                    .orElseThrow(() -> new AssertionError("a dead waiter held a free lock 20 s after a -1 h step"));
            assertThat(afterWaiter.token()).isGreaterThan(freed);
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(20);
        }
    }

    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void stepsOfTwoHoursEitherWayKeepTokensStrictlyIncreasingWithoutRefusals(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer db = server(kind);
        String lock = "steps/" + UUID.randomUUID();
        long last = 0;
        try (SqlLeaseIssuer gateway = db.issuer().build()) {
            for (long offset : new long[] {7200, 0, -7200, 7200, -7200, 0}) {
                db.offset(offset);
                long token = grantAndRelease(gateway, lock);
                assertThat(token).as("after stepping to %+d s", offset).isGreaterThan(last);
                last = token;
            }
        }
        try (SqlLeaseIssuer fresh = db.issuer().build()) {
            assertThat(grantAndRelease(fresh, lock)).as("a gateway started after the steps").isGreaterThan(last);
        }
    }

    @ParameterizedTest
    @EnumSource(SteppedDatabaseServer.Kind.class)
    void aStepBackNoGatewaySawFailsClosedOnTheLocksAheadSaysWhyAndRecoversByItself(SteppedDatabaseServer.Kind kind) throws Exception {
        SteppedDatabaseServer db = server(kind);
        String lock = "unseen/" + UUID.randomUUID();
        long before;
        db.offset(6);
        try (SqlLeaseIssuer gateway = db.issuer().build()) {
            before = grantAndRelease(gateway, lock);
        }
        db.offset(0); // while no gateway runs: nobody can tell this step from time passing
        try (SqlLeaseIssuer fresh = db.issuer().build()) {
            assertThatThrownBy(() -> acquire(fresh, lock, Duration.ofSeconds(5), Duration.ZERO))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(IssuerUnavailableException.class)
                    .hasMessageContaining("fails closed");
            assertThat(fresh.failingClosed()).hasValueSatisfying(why -> assertThat(why).contains("1 lock"));
            assertThat(acquire(fresh, "unseen/other/" + UUID.randomUUID(), Duration.ofSeconds(5), Duration.ZERO))
                    .as("locks not ahead of the clock are granted").isPresent();
            Lease after = acquire(fresh, lock, Duration.ofSeconds(5), Duration.ofSeconds(20))
                    .orElseThrow(() -> new AssertionError("still refused 20 s later"));
            assertThat(after.token()).isGreaterThan(before);
            assertThat(fresh.failingClosed()).as("recovered by itself").isEmpty();
        }
    }

    private static Optional<Lease> acquire(SqlLeaseIssuer issuer, String lock, Duration ttl, Duration wait) throws Exception {
        return issuer.acquire(lock, ttl, wait).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static Lease read(SqlLeaseIssuer issuer, String lock, Duration ttl) throws Exception {
        return issuer.acquire(lock, LeaseMode.READ, ttl, Duration.ofSeconds(10), Duration.ZERO)
                .toCompletableFuture().get(60, TimeUnit.SECONDS).orElseThrow();
    }

    private static long grantAndRelease(SqlLeaseIssuer issuer, String lock) throws Exception {
        Lease lease = acquire(issuer, lock, Duration.ofSeconds(10), Duration.ofSeconds(10)).orElseThrow();
        assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
        return lease.token();
    }

    private static void deadWaiter(SteppedDatabaseServer db, String lock) throws Exception {
        SqlDialect dialect = db.kind == SteppedDatabaseServer.Kind.POSTGRES ? SqlDialect.POSTGRESQL : SqlDialect.MYSQL;
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                dialect.sql("INSERT INTO fencegate_lease_waiter (lock_key, expires_us) VALUES (?, NOW_US + 3000000)"))) {
            s.setBytes(1, SqlLeaseIssuer.sha256(lock.getBytes(StandardCharsets.UTF_8)));
            s.executeUpdate();
        }
    }
}
