package io.fencegate.store.sql;

/**
 * PostgreSQL's guarded operations on fencegate's tables, each one statement, in {@code $n} form
 * (the reactive client's) and, through {@link #positional}, JDBC's: both Postgres stores (the
 * reactive one and the JDBC one) send these same statements. A write is one guarded upsert
 * ({@link #write}, {@link #writeBatch}), as cheap as a plain one: the old token it answers is
 * kept in the row ({@code previous_token}, V5). A fenced read is CTEs: one locks the item's row
 * ({@code FOR UPDATE}, which in READ COMMITTED waits for and returns the newest version), a second
 * raises its fence if the token admits it, a third inserts a fence-only row if there was none. When two first readers race,
 * the loser's insert finds the winner's row ({@code ON CONFLICT DO NOTHING} waits for it to
 * commit) and the statement reports neither: the caller runs it again, and the new statement's
 * snapshot sees the row.
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

    /**
     * A transaction across items (and a fenced multi-read) locks each item's row in key order:
     * {@link #LOCK_ITEM}; a missing one is created empty ({@link #CREATE_ITEM}, which then holds it,
     * or waits for a concurrent creator and answers nothing: lock again). Then {@link #ADVANCE_ITEM}
     * or {@link #RAISE_ITEM_FENCE} per item, or a rollback that removes the rows it created.
     */
    public static final String LOCK_ITEM = "SELECT val, token, fence FROM fencegate_item WHERE resource = $1 FOR UPDATE";
    public static final String CREATE_ITEM = "INSERT INTO fencegate_item (resource, val, token, fence) VALUES ($1, NULL, 0, 0)"
            + " ON CONFLICT (resource) DO NOTHING RETURNING 1";
    /** Parameters: key, value (NULL: a tombstone), token. SET reads the old row, so previous_token is the old token. */
    public static final String ADVANCE_ITEM =
            "UPDATE fencegate_item SET val = $2, token = $3, fence = $3, previous_token = token WHERE resource = $1";
    public static final String RAISE_ITEM_FENCE = "UPDATE fencegate_item SET fence = $2 WHERE resource = $1";

    private PostgresGuardSql() {}

    /** The same text with JDBC's {@code ?} placeholders, bound in order of occurrence. */
    public static String positional(String sql) {
        return sql.replaceAll("\\$\\d+", "?");
    }

    /**
     * Write (or, with a NULL value, delete), one plain upsert: applied iff the guard admits it on
     * the newest version of the row (ON CONFLICT locks the conflicting row, in READ COMMITTED its
     * newest committed version, and judges the WHERE on it; a concurrent first writer's insert is
     * waited for and then judged the same way, so there is no creation race to retry). Answers
     * one row, {@code previous_token} (0 when it inserted), if it applied; none if the guard
     * refused, and then {@link #CURRENT} tells the token and fence that refused it (they only
     * rise, so a later look still refuses). Parameters: key, value, token, token: JDBC binds
     * {@link #positional} placeholders in order of occurrence. {@code strict}: {@code token < t}
     * too, else {@code fence <= t} alone.
     */
    public static String write(boolean strict) {
        return "INSERT INTO fencegate_item AS i (resource, val, token, fence, previous_token) VALUES ($1, $2, $3, $3, 0)"
                + upsertGuarded(strict) + " RETURNING i.previous_token";
    }

    /**
     * The guarded writes of one batch in one statement ({@code $1} keys, {@code $2} values,
     * {@code $3} tokens, arrays of one length and no key twice: a row cannot be upserted twice in
     * one statement), each row judged as {@link #write} judges it, in array order (callers sort
     * the keys, so two batches lock shared rows in the same order and cannot deadlock). Answers
     * {@code resource, previous_token} of each applied row; a key without an answer was refused.
     */
    public static String writeBatch(boolean strict) {
        return "INSERT INTO fencegate_item AS i (resource, val, token, fence, previous_token)"
                + " SELECT b.r, b.v, b.t, b.t, 0 FROM unnest(CAST($1 AS VARCHAR[]), CAST($2 AS BYTEA[]), CAST($3 AS BIGINT[]))"
                + " AS b(r, v, t)"
                + upsertGuarded(strict) + " RETURNING i.resource, i.previous_token";
    }

    /** The token and fence of the keys in {@code $1} (an array): what refused a write that did not apply. */
    public static final String CURRENT = "SELECT resource, token, fence FROM fencegate_item WHERE resource = ANY(CAST($1 AS VARCHAR[]))";

    /** The guard on the existing row {@code i}, judged against the proposed row {@code EXCLUDED}. */
    private static String upsertGuarded(boolean strict) {
        String admits = strict ? "i.fence <= EXCLUDED.token AND i.token < EXCLUDED.token" : "i.fence <= EXCLUDED.token";
        return " ON CONFLICT (resource) DO UPDATE SET val = EXCLUDED.val, token = EXCLUDED.token,"
                + " fence = EXCLUDED.token, previous_token = i.token WHERE " + admits;
    }
}
