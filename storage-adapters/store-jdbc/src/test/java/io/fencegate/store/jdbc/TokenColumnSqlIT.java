package io.fencegate.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.TokenColumnSql.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The token-column guard without jOOQ: the application's own UPDATE, written as text and run
 * through plain JDBC with {@link TokenColumnSql}'s fragments, refuses a stale token on PostgreSQL
 * and MariaDB (whose update count is found rows: the guard in the WHERE clause keeps it exact).
 */
@Timeout(60)
class TokenColumnSqlIT {

    @ParameterizedTest
    @EnumSource(value = TestDatabase.Kind.class, names = {"POSTGRES", "MARIADB"})
    void staleTokenNeverOverwritesANewerWrite(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase db = TestDatabase.create(kind); Connection c = db.connect()) {
            createPriceTable(c);
            TokenColumnSql guard = TokenColumnSql.of("token", GuardRule.STRICT);

            assertThat(write(c, guard, 7, 100)).isEqualTo(1);
            assertThat(write(c, guard, 5, 50)).as("an older lease's late write").isZero();
            assertThat(write(c, guard, 7, 70)).as("STRICT: one write per token").isZero();
            assertThat(row(c)).isEqualTo("100/7");
            assertThat(write(c, guard, 8, 80)).isEqualTo(1);
            assertThat(row(c)).isEqualTo("80/8");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.Kind.class, names = {"POSTGRES", "MARIADB"})
    void fenceRaisedByANewerReadRefusesAnOlderWrite(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase db = TestDatabase.create(kind); Connection c = db.connect()) {
            createPriceTable(c);
            TokenColumnSql guard = TokenColumnSql.of("token", "fence", GuardRule.SAME_LEASE);
            assertThat(write(c, guard, 3, 30)).isEqualTo(1);
            assertThat(write(c, guard, 3, 31)).as("SAME_LEASE: the lease writes again").isEqualTo(1);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE price SET fence = 9 WHERE sku = 'A-1' AND fence <= 9"); // token 9 read the row
            }
            assertThat(write(c, guard, 8, 80)).isZero();
            assertThat(write(c, guard, 9, 90)).isEqualTo(1);
            assertThat(row(c)).isEqualTo("90/9");
        }
    }

    @Test
    void columnNamesArePlainIdentifiers() {
        assertThatThrownBy(() -> TokenColumnSql.of("token; DROP TABLE price", GuardRule.STRICT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token column");
        assertThat(TokenColumnSql.of("tok", "fen", GuardRule.STRICT).admits(4))
                .isEqualTo(new SqlFragment("fen <= ? AND tok < ?", java.util.List.of(4L, 4L)));
    }

    private static int write(Connection c, TokenColumnSql guard, long token, int cents) throws SQLException {
        SqlFragment set = guard.advanceTo(token);
        SqlFragment admitted = guard.admits(token);
        try (PreparedStatement update = c.prepareStatement(
                "UPDATE price SET cents = ?, " + set.sql() + " WHERE sku = ? AND " + admitted.sql())) {
            Object[] values = SqlFragment.parameters(cents, set, "A-1", admitted);
            for (int i = 0; i < values.length; i++) {
                update.setObject(i + 1, values[i]);
            }
            return update.executeUpdate();   // 1 applied, 0 stale
        }
    }

    private static void createPriceTable(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE price (sku VARCHAR(32) NOT NULL PRIMARY KEY, cents INT NOT NULL,"
                    + " token BIGINT NOT NULL, fence BIGINT NOT NULL)");
            s.execute("INSERT INTO price VALUES ('A-1', 0, 0, 0)");
        }
    }

    private static String row(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT cents, token FROM price WHERE sku = 'A-1'")) {
            r.next();
            return r.getInt(1) + "/" + r.getLong(2);
        }
    }
}
