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

    /**
     * The database-side backstop behind the store's key limit: MariaDB's INSERT IGNORE cuts a
     * 2049-byte key to the VARBINARY(2048) column and reports success; the guard row's insert
     * must fail instead, and write nothing (also for fencegate_fence, the guard-row shape).
     */
    @Test
    void insertOfAKeyPastTheColumnFailsInsteadOfTruncating() throws Exception {
        String cut = key("t".repeat(2048 - key("").length()));
        String tooLong = cut + "-tail";
        for (GuardRow rows : java.util.List.of(GuardRow.items(db.dialect()), GuardRow.fences(db.dialect()))) {
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> rows.insertIfMissing(c, tooLong, null, 1, 1, 5))
                        .isInstanceOf(java.sql.SQLException.class).hasMessageContaining("refused");
                c.rollback();
            }
            try (Connection c = db.connect(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM " + rows.table() + " WHERE resource LIKE '"
                            + key("tttt") + "%'")) {
                rs.next();
                assertThat(rs.getLong(1)).as(rows.table()).isZero();
            }
        }
    }
}
