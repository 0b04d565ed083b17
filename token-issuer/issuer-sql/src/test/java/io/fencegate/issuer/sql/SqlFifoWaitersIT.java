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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Waiting is fair: the lock goes to waiters in the order they arrived, whichever gateway each came
 * through and whichever released, on every database.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SqlFifoWaitersIT {

    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void waitersAcrossTwoInstancesAreGrantedInArrivalOrder(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind);
                SqlLeaseIssuer a = db.issuer().build(); SqlLeaseIssuer b = db.issuer().build()) {
            String lock = "fifo/" + kind;
            Lease holder = a.acquire(lock, Duration.ofSeconds(60), Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
            List<CompletableFuture<Optional<Lease>>> waiters = new ArrayList<>();
            SqlLeaseIssuer[] through = {b, a, b, a};
            for (int i = 0; i < through.length; i++) {
                waiters.add(through[i].acquire(lock, Duration.ofSeconds(60), Duration.ofSeconds(90)).toCompletableFuture());
                awaitWaiterRows(db, i + 1); // arrival order is the order their rows were written
            }
            Lease last = holder;
            SqlLeaseIssuer releasing = a;
            for (int i = 0; i < waiters.size(); i++) {
                assertThat(releasing.release(last.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
                Lease next = waiters.get(i).get(30, TimeUnit.SECONDS).orElseThrow();
                assertThat(next.token()).isGreaterThan(last.token());
                for (int later = i + 1; later < waiters.size(); later++) {
                    assertThat(waiters.get(later)).as("waiter %d after waiter %d's grant", later, i).isNotDone();
                }
                last = next;
                releasing = through[i] == a ? b : a; // released through the other instance
            }
            assertThat(releasing.release(last.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static void awaitWaiterRows(SqlTestDatabase db, int rows) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Connection c = db.connect(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM fencegate_lease_waiter")) {
                rs.next();
                if (rs.getInt(1) >= rows) {
                    return;
                }
            }
            assertThat(System.nanoTime()).as("%d waiter rows within 20 s", rows).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
