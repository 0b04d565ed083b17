package io.fencegate.issuer.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether every issuer given the same settings uses the same tables. PostgreSQL resolves the
 * issuer's unqualified table names through the connection's {@code search_path}, whose default
 * ({@code "$user", public}) depends on who connects: a role with a schema of its own
 * ({@code CREATE SCHEMA AUTHORIZATION}), or a role or database default, would get a second set of
 * tables from the same URL, and two issuers would grant one lock at once, each believing it is the
 * deployment. So:
 *
 * <ul>
 *   <li>A connection whose schema is <b>pinned</b> by the connection itself ({@code currentSchema} in
 *       the URL, or a {@code search_path} set for the session, without {@code "$user"}) resolves
 *       the same tables whoever connects: its tables must be there.</li>
 *   <li>Otherwise the database may hold <b>one</b> set of issuer tables, and this connection must
 *       resolve to it: a second set (another schema) is refused, before the migration would create
 *       it and whenever it is found later.</li>
 * </ul>
 *
 * MariaDB/MySQL name one database in the URL and resolve every table there, whoever connects; H2
 * runs in one process. Neither is checked.
 */
final class SqlIssuerPlace {

    private SqlIssuerPlace() { }

    /** Why the issuer would create a second set of tables here (null if it would not); run before the migration. */
    static String beforeMigration(Connection c, SqlDialect dialect, int timeoutSeconds) throws SQLException {
        if (dialect != SqlDialect.POSTGRESQL) {
            return null;
        }
        Resolution r = resolve(c, timeoutSeconds);
        if (r.pinned || r.sets.isEmpty() || r.sets.contains(r.currentSchema)) {
            return null;
        }
        return "this database already holds the SQL issuer's tables in schema " + r.sets + ", but this connection's"
                + " search_path (" + r.searchPath + ", for user " + r.user + ") would create another set in schema "
                + r.currentSchema + ": two sets make two issuers that grant one lock at once. Name the schema in the URL"
                + " (currentSchema=" + r.sets.get(0) + ") for every gateway";
    }

    /** Why the tables this connection resolves are not the deployment's one set (null if they are). */
    static String problem(Connection c, SqlDialect dialect, int timeoutSeconds) throws SQLException {
        if (dialect != SqlDialect.POSTGRESQL) {
            return null;
        }
        Resolution r = resolve(c, timeoutSeconds);
        if (r.resolved == null) {
            return "the SQL issuer's tables are not on this connection's search_path (" + r.searchPath + ", for user "
                    + r.user + ")";
        }
        if (r.pinned || r.sets.size() == 1) {
            return null;
        }
        return "this database holds the SQL issuer's tables in more than one schema " + r.sets + ", and this"
                + " connection's search_path (" + r.searchPath + ", for user " + r.user + ") picks " + r.resolved
                + " by who connects: two issuers on one URL would grant one lock at once. Drop the set no deployment"
                + " uses, or name the schema in the URL (currentSchema=…) for every gateway";
    }

    private record Resolution(String user, String searchPath, boolean pinned, String currentSchema, String resolved,
            List<String> sets) { }

    private static Resolution resolve(Connection c, int timeoutSeconds) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.setQueryTimeout(timeoutSeconds);
            String user;
            String searchPath;
            boolean pinned;
            String current;
            String resolved;
            try (ResultSet rs = s.executeQuery("SELECT current_user, setting, source, current_schema(),"
                    + " (SELECT n.nspname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace"
                    + "   WHERE t.oid = to_regclass('fencegate_lock_fence'))"
                    + " FROM pg_settings WHERE name = 'search_path'")) {
                rs.next();
                user = rs.getString(1);
                searchPath = rs.getString(2);
                String source = rs.getString(3);
                // Set by this connection (start-up parameter or SET), not by a role, database or server default.
                pinned = ("client".equals(source) || "session".equals(source)) && !searchPath.contains("$user");
                current = rs.getString(4);
                resolved = rs.getString(5);
            }
            List<String> sets = new ArrayList<>();
            // pg_class shows every schema's tables, whatever this role may read: a set it cannot use still counts.
            try (ResultSet rs = s.executeQuery("SELECT n.nspname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace"
                    + " WHERE t.relname = 'fencegate_lock_fence' AND t.relkind IN ('r', 'p')"
                    + " AND n.nspname NOT LIKE 'pg\\_temp\\_%' ORDER BY 1")) {
                while (rs.next()) {
                    sets.add(rs.getString(1));
                }
            }
            return new Resolution(user, searchPath, pinned, current, resolved, sets);
        }
    }
}
