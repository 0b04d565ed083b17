package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * On PostgreSQL a release wakes the next waiter, not all: it notifies, on commit, the id of the
 * lock's oldest live waiter and nobody else's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostgresReleaseNotifyIT {

    @Test
    void aReleaseNotifiesTheOldestWaiterOnly() throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(SqlTestDatabase.Kind.POSTGRES);
                SqlLeaseIssuer a = db.issuer().build(); SqlLeaseIssuer b = db.issuer().build();
                Connection listener = db.connect()) {
            String lock = "notify/next";
            Lease holder = a.acquire(lock, Duration.ofSeconds(60), Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
            List<CompletableFuture<Optional<Lease>>> waiters = new ArrayList<>();
            List<Long> ids = List.of();
            for (int i = 0; i < 3; i++) {
                waiters.add(b.acquire(lock, Duration.ofSeconds(60), Duration.ofSeconds(40)).toCompletableFuture());
                ids = awaitWaiterIds(db, i + 1); // one at a time, so list order is arrival order
            }
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN " + SqlReleaseNotifications.CHANNEL);
            }
            assertThat(a.release(holder.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();

            List<String> heard = new ArrayList<>();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < until) {
                PGNotification[] batch = listener.unwrap(PGConnection.class).getNotifications(200);
                if (batch != null) {
                    for (PGNotification n : batch) {
                        heard.add(n.getParameter());
                    }
                }
            }
            assertThat(heard).as("notifications for waiters %s", ids).containsExactly(Long.toString(ids.get(0)));
            Lease first = waiters.get(0).get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(waiters.get(1)).isNotDone();
            assertThat(b.release(first.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static List<Long> awaitWaiterIds(SqlTestDatabase db, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            List<Long> ids = new ArrayList<>();
            try (Connection c = db.connect(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id FROM fencegate_lease_waiter ORDER BY id")) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            if (ids.size() >= count) {
                return ids;
            }
            assertThat(System.nanoTime()).as("%d waiter rows within 20 s", count).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
