package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lock names are bytes to every database: names that differ only in case or accents are distinct
 * locks (a case- or accent-insensitive collation would make them one), and a listing orders them
 * by their unsigned UTF-8 bytes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqlLockNameBytesIT {

    @ParameterizedTest
    @EnumSource(SqlTestDatabase.Kind.class)
    void namesDifferingOnlyInCaseOrAccentsAreDistinctLocksListedInByteOrder(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind); SqlLeaseIssuer issuer = db.issuer().build()) {
            String prefix = "names/";
            List<String> names = new ArrayList<>(List.of("stock", "Stock", "STOCK", "ställ", "stall", "z", "é", "e", "日本", "🔒"));
            for (String name : names) {
                assertThat(issuer.acquire(prefix + name, Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                        .get(20, TimeUnit.SECONDS)).as("'%s' is a lock of its own", name).isPresent();
            }
            names.sort(Comparator.comparing(n -> n.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
            List<LeaseInfo> listed = issuer.list(prefix, null, 100).toCompletableFuture().get(20, TimeUnit.SECONDS).leases();
            assertThat(listed).extracting(LeaseInfo::lock).containsExactlyElementsOf(names.stream().map(n -> prefix + n).toList());
            Lease again = issuer.acquire(prefix + "Stock", Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS).orElse(null);
            assertThat(again).as("still held").isNull();
        }
    }
}
