package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tokens survive what a database's life brings: every issuer restarting, and the database restored
 * from an older backup (its fence rows fall back, rows of locks created since vanish), on every
 * database the issuer runs on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SqlBackupRestoreIT {

    private static final List<String> TABLES = List.of("fencegate_lock_fence", "fencegate_lease_grant", "fencegate_lease_waiter",
            "fencegate_lease_reader", "fencegate_semaphore");
    private static final Duration TTL = Duration.ofSeconds(30);

    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void tokensKeepGrowingAcrossARestartOfEveryIssuer(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind)) {
            long before;
            try (SqlLeaseIssuer first = db.issuer().build()) {
                before = grantAndRelease(first, "restart", 3);
            }
            try (SqlLeaseIssuer second = db.issuer().build()) {
                assertThat(grantAndRelease(second, "restart", 1)).isGreaterThan(before);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void aRestoreFromAnOlderBackupNeverHandsOutATokenAgainNorALowerOne(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind); SqlLeaseIssuer running = db.issuer().build()) {
            grantAndRelease(running, "a", 3);
            grantAndRelease(running, "b", 1);
            Map<String, List<Object[]>> backup = backup(db);
            Map<String, Long> highest = new HashMap<>();
            highest.put("a", grantAndRelease(running, "a", 3));
            highest.put("b", grantAndRelease(running, "b", 0));
            highest.put("c", grantAndRelease(running, "c", 2)); // a lock created after the backup

            restore(db, backup);
            // The negative control: the restored fence row is behind what was granted, so a plain
            // counter (fence + 1) would hand out a token again.
            assertThat(fenceToken(db, "a")).isLessThan(highest.get("a"));
            assertThat(fenceToken(db, "c")).as("no fence row: the lock did not exist yet").isNull();

            try (SqlLeaseIssuer fresh = db.issuer().build()) { // a gateway started after the restore: no memory
                for (String lock : List.of("a", "b", "c")) {
                    long token = grantAndRelease(fresh, lock, 1);
                    assertThat(token).as("first token on %s after the restore", lock).isGreaterThan(highest.get(lock));
                    highest.put(lock, token);
                }
            }
            for (String lock : List.of("a", "b", "c")) {
                assertThat(grantAndRelease(running, lock, 1)).as("the instance that ran through it").isGreaterThan(highest.get(lock));
            }
        }
    }

    /**
     * A lock whose last token is ahead of the issuer's clock (as after a restore of a backup taken
     * while the clock ran ahead, with no gateway watching the step back) is refused, with the reason,
     * until the clock passes it; other locks are granted meanwhile; it recovers by itself.
     */
    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void aLockWhoseLastTokenIsAheadOfTheClockFailsClosedUntilTheClockPassesIt(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind); SqlLeaseIssuer running = db.issuer().build()) {
            grantAndRelease(running, "ahead", 1);
            long ahead;
            try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                    "UPDATE fencegate_lock_fence SET token = token + 4000000 WHERE lock_key = ?")) {
                s.setBytes(1, SqlLeaseIssuer.sha256("ahead".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                assertThat(s.executeUpdate()).isEqualTo(1);
            }
            ahead = fenceToken(db, "ahead");
            assertThatThrownBy(() -> running.acquire("ahead", TTL, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(io.fencegate.issuer.IssuerUnavailableException.class).hasMessageContaining("fails closed");
            assertThat(running.failingClosed()).isPresent();
            assertThat(grantAndRelease(running, "not-ahead", 1)).as("another lock").isPositive();
            Lease after = running.acquire("ahead", TTL, Duration.ofSeconds(20)).toCompletableFuture().get(40, TimeUnit.SECONDS)
                    .orElseThrow(() -> new AssertionError("still refused 20 s later"));
            assertThat(after.token()).isGreaterThan(ahead);
            assertThat(running.failingClosed()).as("recovered by itself").isEmpty();
        }
    }

    /** Grants and releases {@code times} leases on {@code lock} (strictly increasing tokens); answers the last token (0 if none). */
    private static long grantAndRelease(SqlLeaseIssuer issuer, String lock, int times) throws Exception {
        long last = 0;
        for (int i = 0; i < times; i++) {
            Lease lease = issuer.acquire(lock, TTL, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(lease.token()).isGreaterThan(last);
            last = lease.token();
            assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
        }
        return last;
    }

    private static Long fenceToken(SqlTestDatabase db, String lock) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement("SELECT token FROM fencegate_lock_fence WHERE lock_key = ?")) {
            s.setBytes(1, SqlLeaseIssuer.sha256(lock.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    private static Map<String, List<Object[]>> backup(SqlTestDatabase db) throws Exception {
        Map<String, List<Object[]>> tables = new HashMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                List<Object[]> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        Object[] row = new Object[columns];
                        for (int i = 0; i < columns; i++) {
                            row[i] = rs.getObject(i + 1);
                        }
                        rows.add(row);
                    }
                }
                tables.put(table, rows);
            }
        }
        return tables;
    }

    private static void restore(SqlTestDatabase db, Map<String, List<Object[]>> backup) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                s.executeUpdate("DELETE FROM " + table);
                for (Object[] row : backup.get(table)) {
                    String marks = String.join(", ", java.util.Collections.nCopies(row.length, "?"));
                    try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " VALUES (" + marks + ")")) {
                        for (int i = 0; i < row.length; i++) {
                            insert.setObject(i + 1, row[i]);
                        }
                        insert.executeUpdate();
                    }
                }
            }
        }
    }
}
