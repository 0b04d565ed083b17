package io.fencegate.store.jdbc;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Keys are compared as bytes on H2 too, whatever the database's settings say: with
 * {@code IGNORECASE=TRUE} in the URL (text columns created under it compare case-insensitively)
 * or a case-insensitive collation ({@code SET COLLATION ... STRENGTH PRIMARY}), {@code "Stock"}
 * and {@code "stock"} would be one row guarded by two locks ({@code store/Stock},
 * {@code store/stock}), and a holder of one would overwrite the item of the other.
 */
class H2CaseInsensitiveKeysIT {

    private final String name = "fg_ci_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    @Test
    void keysDifferingOnlyInCaseStayTwoItemsWithIgnoreCaseInTheUrl() throws Exception {
        String url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;IGNORECASE=TRUE";
        assertTwoItems(url);
    }

    @Test
    void keysDifferingOnlyInCaseStayTwoItemsUnderACaseInsensitiveCollation() throws Exception {
        String url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        sql(url, "SET COLLATION ENGLISH STRENGTH PRIMARY");
        assertTwoItems(url);
    }

    /** A database whose tables were created under IGNORECASE before keys were bytes: the migration converts them. */
    @Test
    void keysOfADatabaseMigratedUnderIgnoreCaseBeforeAreKeptAndCompareAsBytesAfter() throws Exception {
        String url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;IGNORECASE=TRUE";
        Flyway.configure().dataSource(url, "sa", "").locations(FencegateSchema.locations(FencegateSchema.Dialect.H2))
                .table(FencegateSchema.HISTORY_TABLE).baselineOnMigrate(true).baselineVersion("0").target("4")
                .load().migrate();
        sql(url, "INSERT INTO fencegate_item (resource, val, token, fence) VALUES ('Stock/ü', X'6f6c64', 10, 10)");
        try (JdbcGuardedStore store = open(url)) {
            assertThat(await(store.read("Stock/ü"))).as("the old row, read by its key")
                    .isInstanceOfSatisfying(Found.class, found -> {
                        assertThat(found.token()).isEqualTo(10);
                        assertThat(new String(found.value(), StandardCharsets.UTF_8)).isEqualTo("old");
                    });
            assertThat(await(store.write("stock/ü", 11, bytes("new")))).isEqualTo(new Applied(0));
            assertThat(await(store.write("Stock/ü", 12, bytes("kept")))).isEqualTo(new Applied(10));
        } finally {
            sql(url, "SHUTDOWN");
        }
    }

    private void assertTwoItems(String url) throws Exception {
        try (JdbcGuardedStore store = open(url)) {
            assertThat(await(store.write("Stock", 10, bytes("ten")))).isEqualTo(new Applied(0));
            assertThat(await(store.write("stock", 11, bytes("eleven")))).as("another item, under another lock")
                    .isEqualTo(new Applied(0));
            assertThat(await(store.read("Stock"))).isInstanceOfSatisfying(Found.class, found -> {
                assertThat(found.token()).isEqualTo(10);
                assertThat(new String(found.value(), StandardCharsets.UTF_8)).isEqualTo("ten");
            });
        } finally {
            sql(url, "SHUTDOWN");
        }
    }

    private JdbcGuardedStore open(String url) {
        return JdbcGuardedStore.open(new JdbcStoreOptions().jdbcUrl(url).username("sa").password("").name(name).poolSize(2));
    }

    private static void sql(String url, String statement) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
