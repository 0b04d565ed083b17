package io.fencegate.store.jdbc;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.StoreLimits;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The store contract on the real MariaDB at 127.0.0.1:3306, in a database of its own. */
class MariaDbJdbcGuardedStoreIT extends AbstractJdbcContractIT {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }

    @Test
    void valuesAreLimitedByMaxAllowedPacketWithAClearErrorNotADriverFailure() throws Exception {
        long packet;
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
            rs.next();
            packet = rs.getLong(1);
        }
        try (JdbcGuardedStore store = JdbcGuardedStore.open(db.options().migrate(false).poolSize(1)
                .limits(new StoreLimits(2048, Integer.MAX_VALUE)))) {
            int limit = store.limits().maxValueBytes();
            assertThat((long) limit).isLessThan(packet);
            String k = key("packet");
            Throwable refused = failureOf(() -> store.write(k, 1, new byte[limit + 1]));
            assertThat(refused).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(limit));
            // The worst case for the text protocol: every byte escaped.
            byte[] zeros = new byte[limit];
            assertThat(await(store.write(k, 2, zeros))).isEqualTo(new Applied(0));
            assertThat(((Found) await(store.read(k))).value()).hasSize(limit);
        }
    }
}
