package io.fencegate.store.jdbc;

import io.fencegate.store.GuardRule;
import io.fencegate.store.KeysResult;
import io.fencegate.store.Refused;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.backend.ItemState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The token-column shape: fencing on the application's own table, from its own jOOQ code. The
 * row carries a {@code token} column (of its last applied write) and, for fenced reads, a
 * {@code fence} column (the highest token that claimed it); this class adds the guard to the
 * application's statements:
 *
 * <pre>{@code
 * TokenColumnGuard guard = TokenColumnGuard.of(STOCK.TOKEN, STOCK.FENCE, GuardRule.STRICT);
 * if (guard.claim(dsl, STOCK, STOCK.SKU.eq(sku), token)) {          // fenced read
 *     int qty = dsl.select(STOCK.QTY).from(STOCK).where(STOCK.SKU.eq(sku)).fetchOne(STOCK.QTY);
 *     int rows = dsl.update(STOCK)
 *             .set(STOCK.QTY, qty - 1)
 *             .set(guard.advanceTo(token))                           // token = fence = t
 *             .where(STOCK.SKU.eq(sku))
 *             .and(guard.admits(token))                              // fence <= t and token < t
 *             .execute();                                            // 1 applied, 0 stale
 * }
 * }</pre>
 *
 * <p>Several rows, each guarded by its own lock with its own token: {@link #runAll} locks them in
 * one canonical key order and runs the work only if every row's guard admits its token.
 *
 * <p>The count of a guarded UPDATE is exact on every database: the guard is in its WHERE
 * clause, so MariaDB's found rows and changed rows agree under {@code strict} (the token always
 * changes). Under {@code same-lease} a connection with {@code useAffectedRows=true} counts a
 * rewrite of identical values as 0: use the default (found rows) there.
 */
public final class TokenColumnGuard {

    private final Field<Long> token;
    private final Field<Long> fence;
    private final GuardRule rule;

    private TokenColumnGuard(Field<Long> token, Field<Long> fence, GuardRule rule) {
        this.token = Objects.requireNonNull(token, "token");
        this.fence = fence;
        this.rule = Objects.requireNonNull(rule, "rule");
    }

    /** A guard on a token column and a fence column (fenced reads possible). */
    public static TokenColumnGuard of(Field<Long> token, Field<Long> fence, GuardRule rule) {
        return new TokenColumnGuard(token, Objects.requireNonNull(fence, "fence"), rule);
    }

    /** A guard on a token column alone: writes are guarded, reads cannot be fenced. */
    public static TokenColumnGuard of(Field<Long> token, GuardRule rule) {
        return new TokenColumnGuard(token, null, rule);
    }

    /**
     * The WHERE condition admitting a write with {@code t} under the rule (DESIGN.md table): the
     * rule of {@link io.fencegate.store.backend.GuardDecision#write}, in SQL, because the application's
     * own UPDATE decides in the database.
     */
    public Condition admits(long t) {
        StoreLimits.checkToken(t);
        Condition byToken = rule == GuardRule.STRICT ? token.lt(t) : token.le(t);
        return fence == null ? byToken : fence.le(t).and(byToken);
    }

    /** The SET assignments of an admitted write: token (and fence) = {@code t}. */
    public Map<Field<?>, Object> advanceTo(long t) {
        StoreLimits.checkToken(t);
        Map<Field<?>, Object> set = new LinkedHashMap<>();
        set.put(token, t);
        if (fence != null) {
            set.put(fence, t);
        }
        return set;
    }

    /**
     * A fenced read's claim on the rows matching {@code row}: raises their fence to {@code t}
     * unless a higher token claimed them. True if claimed (then no lower token can write them);
     * read the row afterwards, or in the same transaction. Run it in the transaction that
     * writes, or on its own: either way a lower token is fenced out from here on.
     */
    public boolean claim(DSLContext dsl, Table<?> table, Condition row, long t) {
        if (fence == null) {
            throw new IllegalStateException("claim needs a fence column: use TokenColumnGuard.of(token, fence, rule)");
        }
        StoreLimits.checkToken(t);
        int raised = dsl.update(table).set(fence, t).where(row).and(fence.le(t)).execute();
        if (raised > 0) {
            return true;
        }
        // 0 is also what MariaDB with useAffectedRows=true answers when the fence already equals t.
        Long now = dsl.select(fence).from(table).where(row).fetchAny(fence);
        return now != null && now == t;
    }

    /**
     * Runs {@code work} in one transaction under the guards of several rows of {@code table}, each
     * row named by its value in {@code keyColumn} and guarded by its own token (key → token, e.g.
     * a {@code MultiLock} group's {@code tokens()}). The rows are locked ({@code SELECT … FOR
     * UPDATE}) in the canonical key order (unsigned UTF-8 byte order, whatever the map's order),
     * so transactions over crossing key sets never deadlock; each row is judged by its own token
     * and fence under the rule; then either the work runs and every row's token (and fence) is set
     * to its key's token, or nothing runs and the transaction rolls back. The work's statements
     * need no guard of their own: they run while every row is locked and admitted.
     *
     * @return {@link io.fencegate.store.ExecutedAll} (each row's previous token, rows changed) or
     *         {@link Refused} naming every refused key, in the map's order, with its current token
     *         and fence
     * @throws IllegalArgumentException for no keys, more than {@code GuardedOp.MAX_ITEMS}, a bad
     *         key or token, or a key with no row in {@code table} (nothing changes)
     */
    public KeysResult runAll(DSLContext dsl, Table<?> table, Field<String> keyColumn, Map<String, Long> tokens,
            GuardRowTransactions.GuardedWork work) {
        List<String> order = KeyGuards.lockOrder(tokens);
        Objects.requireNonNull(work, "work");
        try {
            return GuardRowTransactions.retryingDeadlocks(() -> dsl.transactionResult(cfg -> {
                DSLContext tx = DSL.using(cfg);
                Map<String, ItemState> locked = new LinkedHashMap<>();
                for (String key : order) {
                    locked.put(key, lock(tx, table, keyColumn, key));
                }
                Refused refused = KeyGuards.refusals(rule, tokens, locked);
                if (refused != null) {
                    throw new KeyGuards.RefusedRollback(refused);
                }
                int rows = work.run(tx);
                for (String key : order) {
                    tx.update(table).set(advanceTo(tokens.get(key))).where(keyColumn.eq(key)).execute();
                }
                return KeyGuards.executed(locked, rows);
            }));
        } catch (KeyGuards.RefusedRollback r) {
            return r.refused;
        }
    }

    /** Locks the row of {@code key}: its token and fence (the token, without a fence column: see {@link #admits}). */
    private ItemState lock(DSLContext tx, Table<?> table, Field<String> keyColumn, String key) {
        Record row = fence == null
                ? tx.select(token).from(table).where(keyColumn.eq(key)).forUpdate().fetchOne()
                : tx.select(token, fence).from(table).where(keyColumn.eq(key)).forUpdate().fetchOne();
        if (row == null) {
            throw new IllegalArgumentException("no row of " + table.getName() + " has " + keyColumn.getName() + " = '"
                    + key + "': a token-column guard needs the row");
        }
        long t = row.get(token);
        // Without a fence column the guard is on the token alone: fence = token judges it so.
        return new ItemState(t, fence == null ? t : row.get(fence), null);
    }

    /**
     * For MySQL/MariaDB {@code INSERT … ON DUPLICATE KEY UPDATE}: the guarded assignments, in the
     * only safe order. MySQL evaluates them left to right, each seeing the columns already
     * assigned: if the token were set first, every later comparison would see the new token and
     * keep the old values, so a row would carry the new token with old data. So: the values
     * first, then the fence, the token last.
     *
     * <pre>{@code
     * dsl.insertInto(STOCK).set(STOCK.SKU, sku).set(STOCK.QTY, qty).set(STOCK.TOKEN, t).set(STOCK.FENCE, t)
     *    .onDuplicateKeyUpdate().set(guard.upsertAssignments(t, Map.of(STOCK.QTY, qty)))
     *    .execute();   // MariaDB counts found rows: read the token back to judge applied / stale
     * }</pre>
     */
    public Map<Field<?>, Field<?>> upsertAssignments(long t, Map<? extends Field<?>, ?> values) {
        Condition admitted = admits(t);
        Map<Field<?>, Field<?>> set = new LinkedHashMap<>();
        values.forEach((column, value) -> set.put(column, guarded(admitted, column, value)));
        if (fence != null) {
            set.put(fence, DSL.when(admitted, DSL.val(t)).otherwise(fence));
        }
        set.put(token, DSL.when(admitted, DSL.val(t)).otherwise(token));
        return set;
    }

    @SuppressWarnings("unchecked")
    private static <T> Field<T> guarded(Condition admitted, Field<T> column, Object value) {
        Field<T> newValue = value instanceof Field<?> f ? (Field<T>) f : DSL.val((T) value, column);
        return DSL.when(admitted, newValue).otherwise(column);
    }
}
