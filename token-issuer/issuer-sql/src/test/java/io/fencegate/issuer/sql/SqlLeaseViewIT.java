package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code fencegate_leases} (migration V2), the view operators read with psql or mysql: a lock's
 * name as text (the table holds its bytes), its token, whether it is held and by whom, and how
 * long the lease has left, by the issuer's clock; the issuer's clock row is not a lock and is left
 * out. On PostgreSQL, MariaDB and H2.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqlLeaseViewIT {

    private record Row(String lockName, long token, boolean held, String holder, Long expiresInMs, Object expiresAt) { }

    private static List<Row> rows(SqlTestDatabase db) throws Exception {
        List<Row> out = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT lock_name, token, held, holder, expires_in_ms, expires_at"
                        + " FROM fencegate_leases ORDER BY lock_name")) {
            while (rs.next()) {
                long left = rs.getLong(5);
                out.add(new Row(rs.getString(1), rs.getLong(2), rs.getBoolean(3), rs.getString(4),
                        rs.wasNull() ? null : left, rs.getObject(6)));
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void theViewShowsLockNamesAsTextWithTheHolderTokenAndExpiry(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind);
                SqlLeaseIssuer issuer = db.issuer().instanceName("gateway-a").build()) {
            String name = "orders/größe 1";
            Lease lease = issuer.acquire(name, Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS).orElseThrow();

            List<Row> held = rows(db);
            assertThat(held).hasSize(1);
            Row row = held.get(0);
            assertThat(row.lockName()).isEqualTo(name);
            assertThat(row.token()).isEqualTo(lease.token());
            assertThat(row.held()).isTrue();
            assertThat(row.holder()).isEqualTo("gateway-a");
            // The row's expiry lies the lease's margin past its ttl (LeaseTables#keptUs), and the view shows the row.
            assertThat(row.expiresInMs()).isBetween(1L, LeaseTables.keptUs(30_000) / 1000);
            assertThat(row.expiresAt()).isNotNull();

            assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            Row released = rows(db).get(0);
            assertThat(released.lockName()).isEqualTo(name);
            assertThat(released.token()).as("the fence stays").isEqualTo(lease.token());
            assertThat(released.held()).isFalse();
            assertThat(released.holder()).isNull();
            assertThat(released.expiresInMs()).isNull();
        }
    }
}
