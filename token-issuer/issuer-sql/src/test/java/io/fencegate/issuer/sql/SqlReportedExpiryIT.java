package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The expiry a holder is told is never later than the one the database keeps ({@code expires_us},
 * by its clock; here the database shares this host's clock): a holder that stops writing at
 * {@code expiresAt} has stopped before any other gateway can be granted the lock. Checked on
 * acquire, renew and find, on every database.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqlReportedExpiryIT {

    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void theExpiryAHolderIsToldIsNeverLaterThanTheDatabases(SqlTestDatabase.Kind kind) throws Exception {
        Duration ttl = Duration.ofSeconds(20);
        try (SqlTestDatabase db = SqlTestDatabase.create(kind); SqlLeaseIssuer issuer = db.issuer().build()) {
            for (int i = 0; i < 20; i++) {
                String lock = "expiry/" + i;
                Lease lease = issuer.acquire(lock, ttl, Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
                assertThat(lease.expiresAt()).as("acquire #%d", i).isLessThanOrEqualTo(databaseExpiryMs(db, lock));
                Lease renewed = issuer.renew(lease.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
                assertThat(renewed.expiresAt()).as("renew #%d", i).isLessThanOrEqualTo(databaseExpiryMs(db, lock));
                Lease found = issuer.find(lease.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow();
                assertThat(found.expiresAt()).as("find #%d", i).isLessThanOrEqualTo(databaseExpiryMs(db, lock));
            }
        }
    }

    private static long databaseExpiryMs(SqlTestDatabase db, String lock) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement("SELECT expires_us FROM fencegate_lock_fence WHERE lock_key = ?")) {
            s.setBytes(1, SqlLeaseIssuer.sha256(lock.getBytes(StandardCharsets.UTF_8)));
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1) / 1000;
            }
        }
    }
}
