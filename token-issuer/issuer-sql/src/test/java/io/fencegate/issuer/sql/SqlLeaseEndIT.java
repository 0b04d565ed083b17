package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How a lease granted here ended is told once and rightly: released (through any gateway, also
 * after its grant row is gone) or expired, never both.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SqlLeaseEndIT {

    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void aLeaseReleasedThroughAnotherGatewayAfterTheGrantRetentionIsNotToldExpired(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind); SqlLeaseIssuer granting = db.issuer().build();
                SqlLeaseIssuer other = db.issuer().build()) {
            Map<String, LeaseEnd> told = new ConcurrentHashMap<>();
            granting.addListener((lease, reason) -> told.put(lease.leaseId(), reason));
            String lock = "end/retention/" + UUID.randomUUID();
            Lease lease = granting.acquire(lock, Duration.ofSeconds(3), Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS)
                    .orElseThrow();
            try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement( // what the retention sweep does
                    "DELETE FROM fencegate_lease_grant WHERE lock_key = ?")) {
                s.setBytes(1, SqlLeaseIssuer.sha256(lock.getBytes(StandardCharsets.UTF_8)));
                assertThat(s.executeUpdate()).isEqualTo(1);
            }
            assertThat(other.release(lease.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(4000); // past the expiry: the granting gateway's watch has asked
            assertThat(told).as("ends told to the granting gateway").isEmpty();
            assertThat(granting.wasReleased(lease).toCompletableFuture().get(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void aLeaseReleasedAroundItsExpiryIsEitherReleasedOrExpiredNeverBoth(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind); SqlLeaseIssuer granting = db.issuer().build();
                SqlLeaseIssuer other = db.issuer().build()) {
            Set<String> expired = ConcurrentHashMap.newKeySet();
            granting.addListener((lease, reason) -> expired.add(lease.leaseId()));
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                leases.add(granting.acquire("end/race/" + UUID.randomUUID(), Duration.ofMillis(300), Duration.ZERO)
                        .toCompletableFuture().get(20, TimeUnit.SECONDS).orElseThrow());
            }
            Thread.sleep(Math.max(0, leases.get(0).expiresAt() - System.currentTimeMillis() - 20));
            List<CompletableFuture<Boolean>> releases = new ArrayList<>();
            for (Lease lease : leases) {
                releases.add(other.release(lease.leaseId()).toCompletableFuture());
            }
            Set<String> released = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < leases.size(); i++) {
                if (releases.get(i).get(20, TimeUnit.SECONDS)) {
                    released.add(leases.get(i).leaseId());
                }
            }
            Thread.sleep(1500); // every watch has asked
            Set<String> both = ConcurrentHashMap.newKeySet();
            both.addAll(released);
            both.retainAll(expired);
            assertThat(both).as("released %d, told expired %d", released.size(), expired.size()).isEmpty();
        }
    }
}
