package io.fencegate.store.sql;

import io.fencegate.store.StoreName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The owner of a database / schema ({@code fencegate_store_claim}, migration V4). Items are
 * keyed by the bare key while locks ({@code store/key}) and API-key scopes are per store, so two
 * stores with different names on one schema would overwrite each other's items under each
 * other's locks. The first store to open a schema claims it for its name; every store then reads
 * the claim, and one with another name must refuse to open. The claim's primary key makes
 * concurrent claims race-free: exactly one name wins. Another process with the same name (a
 * restart, another gateway of a scale-out) is the owner and opens.
 */
public final class StoreClaim {

    /** Inserts the claim; a duplicate key means someone claimed first (a second statement reads whom). */
    public static final String INSERT = "INSERT INTO fencegate_store_claim (id, store_name) VALUES (1, ?)";
    public static final String SELECT = "SELECT store_name FROM fencegate_store_claim WHERE id = 1";
    /** The reactive client's form of {@link #INSERT}. */
    public static final String INSERT_PG = "INSERT INTO fencegate_store_claim (id, store_name) VALUES (1, $1)"
            + " ON CONFLICT (id) DO NOTHING";

    private StoreClaim() {
    }

    /**
     * Claims the schema behind {@code c} for {@code name} unless it is claimed; answers the owner's
     * name (equal to {@code name} if this store may use the schema). Runs in autocommit.
     */
    public static String claim(Connection c, String name, int timeoutSeconds) throws SQLException {
        StoreName.check(name);
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
            c.rollback();
            c.setAutoCommit(true);
        }
        try {
            try (PreparedStatement insert = c.prepareStatement(INSERT)) {
                insert.setQueryTimeout(timeoutSeconds);
                insert.setString(1, name);
                insert.executeUpdate();
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                    throw e;
                }
                // a duplicate key: the schema is claimed already, by this name or another
            }
            try (PreparedStatement select = c.prepareStatement(SELECT)) {
                select.setQueryTimeout(timeoutSeconds);
                try (ResultSet rs = select.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("fencegate_store_claim has no row after a claim", "40001");
                    }
                    return rs.getString(1);
                }
            }
        } finally {
            if (!autoCommit) {
                c.setAutoCommit(false);
            }
        }
    }
}
