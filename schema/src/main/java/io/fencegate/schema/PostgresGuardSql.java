package io.fencegate.schema;

/**
 * PostgreSQL's guarded operations on fencegate's tables, each one statement, one round trip, in
 * {@code $n} form (the reactive client's) and, through {@link #positional}, JDBC's. Kept beside
 * the migrations that define the tables. A CTE locks the item's row ({@code FOR UPDATE}, which in
 * READ COMMITTED waits for and returns the newest version), a second updates it only if the locked
 * token and fence admit the operation, a third inserts the row if there was none. When two first
 * writers race, the loser's insert finds the winner's row ({@code ON CONFLICT DO NOTHING} waits
 * for it to commit) and the statement reports neither update nor insert: the caller runs it
 * again, and the new statement's snapshot sees the row.
 */
public final class PostgresGuardSql {
    public static final String READ = "SELECT val, token, fence FROM fencegate_item WHERE resource = $1";

    public static final String FENCED_READ =
            "WITH p AS (SELECT CAST($1 AS VARCHAR) AS r, CAST($2 AS BIGINT) AS t),"
            + " cur AS (SELECT i.token, i.fence, i.val FROM fencegate_item i, p WHERE i.resource = p.r FOR UPDATE OF i),"
            + " upd AS (UPDATE fencegate_item i SET fence = p.t FROM p, cur WHERE i.resource = p.r AND cur.fence < p.t RETURNING 1),"
            + " ins AS (INSERT INTO fencegate_item (resource, val, token, fence)"
            + "         SELECT p.r, NULL, 0, p.t FROM p WHERE NOT EXISTS (SELECT 1 FROM cur)"
            + "         ON CONFLICT (resource) DO NOTHING RETURNING 1)"
            + " SELECT cur.token, cur.fence, cur.val, EXISTS (SELECT 1 FROM ins)"
            + " FROM (SELECT 1) AS one LEFT JOIN cur ON TRUE";

    public static final String CREATE_GUARD_ROW =
            "INSERT INTO fencegate_fence (resource, token, fence) VALUES ($1, 0, 0) ON CONFLICT (resource) DO NOTHING";
    public static final String LOCK_GUARD_ROW = "SELECT token, fence FROM fencegate_fence WHERE resource = $1 FOR UPDATE";
    public static final String ADVANCE_GUARD_ROW = "UPDATE fencegate_fence SET token = $2, fence = $2 WHERE resource = $1";

    private PostgresGuardSql() {}

    /** The same text with JDBC's {@code ?} placeholders (each {@code $n} is used once, in order). */
    public static String positional(String sql) {
        return sql.replaceAll("\\$\\d+", "?");
    }

    /**
     * Write (or, with a NULL value, delete): answers the locked token and fence, whether it updated
     * and whether it inserted. {@code strict}: {@code token < t} too, else {@code fence <= t} alone.
     */
    public static String write(boolean strict) {
        String admits = strict ? "cur.fence <= p.t AND cur.token < p.t" : "cur.fence <= p.t";
        return "WITH p AS (SELECT CAST($1 AS VARCHAR) AS r, CAST($2 AS BYTEA) AS v, CAST($3 AS BIGINT) AS t),"
                + " cur AS (SELECT i.token, i.fence FROM fencegate_item i, p WHERE i.resource = p.r FOR UPDATE OF i),"
                + " upd AS (UPDATE fencegate_item i SET val = p.v, token = p.t, fence = p.t FROM p, cur"
                + "         WHERE i.resource = p.r AND " + admits + " RETURNING 1),"
                + " ins AS (INSERT INTO fencegate_item (resource, val, token, fence)"
                + "         SELECT p.r, p.v, p.t, p.t FROM p WHERE NOT EXISTS (SELECT 1 FROM cur)"
                + "         ON CONFLICT (resource) DO NOTHING RETURNING 1)"
                + " SELECT (SELECT token FROM cur), (SELECT fence FROM cur),"
                + "        EXISTS (SELECT 1 FROM upd), EXISTS (SELECT 1 FROM ins)";
    }
}
