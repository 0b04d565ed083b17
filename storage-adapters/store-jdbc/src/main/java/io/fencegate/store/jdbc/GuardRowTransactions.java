package io.fencegate.store.jdbc;

import io.fencegate.schema.FencegateSchema.Dialect;
import io.fencegate.store.GuardRule;
import io.fencegate.store.KeysResult;
import io.fencegate.store.Refused;
import io.fencegate.store.StatementResult;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.backend.ItemState;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * The guard-row shape, from the application's own jOOQ code: one transaction that locks the
 * key's row in {@code fencegate_fence} (creating it if missing, race-free), checks and advances
 * its token and fence under the rule, and runs any number of the application's statements in
 * between; all or nothing.
 *
 * <pre>{@code
 * GuardRowTransactions guarded = GuardRowTransactions.of(dsl, GuardRule.STRICT);
 * StatementResult result = guarded.run("inventory/sku-42", token, tx -> {
 *     int qty = tx.select(STOCK.QTY).from(STOCK).where(STOCK.SKU.eq("sku-42")).fetchOne(STOCK.QTY);
 *     return tx.update(STOCK).set(STOCK.QTY, qty - 1).where(STOCK.SKU.eq("sku-42")).execute()
 *          + tx.insertInto(SALES).set(SALES.SKU, "sku-42").execute();
 * });
 * // Executed(previousToken, rows) or Stale(currentToken, fence, token): then nothing ran.
 * }</pre>
 *
 * <p><b>A fenced read-modify-write by construction.</b> The guard row is locked before the work
 * runs and held until commit, so everything the work reads is read under the fence: a holder
 * with a lower token cannot have read the same state and write after this one (it is stale
 * before its first statement), and a concurrent holder waits on the lock and then reads what this
 * one committed. Plain SELECTs suffice inside the work, as long as every writer of those rows
 * goes through the same guard row.
 *
 * <p>Several keys, each guarded by its own lock with its own token (a {@code MultiLock}'s group):
 * {@link #runAll} locks every key's guard row in one canonical order, so transactions over crossing
 * key sets never deadlock, and runs the work only if every guard admits its token.
 *
 * <p>If the work throws, everything rolls back, including a newly created guard row. When the
 * database breaks a deadlock (two first users of a key on MySQL's REPEATABLE READ), the whole
 * transaction rolled back and is run again: keep the work free of side effects outside it.
 */
public final class GuardRowTransactions {

    /** Runs of one transaction that the database keeps rolling back for a deadlock (see {@link #backOff}). */
    private static final int ATTEMPTS = 12;

    /** The application's statements, run under the locked guard row; answers rows changed. */
    @FunctionalInterface
    public interface GuardedWork {
        int run(DSLContext tx) throws Exception;
    }

    private final DSLContext dsl;
    private final GuardRule rule;
    private final GuardRow fences;
    private final int timeoutSeconds;

    private GuardRowTransactions(DSLContext dsl, GuardRule rule, int timeoutSeconds) {
        this.dsl = Objects.requireNonNull(dsl, "dsl");
        this.rule = Objects.requireNonNull(rule, "rule");
        this.fences = GuardRow.fences(dialectOf(dsl.dialect()));
        this.timeoutSeconds = timeoutSeconds;
    }

    /** Guard-row transactions on {@code dsl}'s data source (with fencegate's schema applied). */
    public static GuardRowTransactions of(DSLContext dsl, GuardRule rule) {
        return new GuardRowTransactions(dsl, rule, 10);
    }

    /** Runs {@code work} under the guard row of {@code key}, on the calling thread. */
    public StatementResult run(String key, long token, GuardedWork work) {
        StoreLimits.DEFAULT.checkKey(key);
        StoreLimits.checkToken(token);
        return retryingDeadlocks(() -> dsl.transactionResult(cfg -> {
            DSLContext tx = DSL.using(cfg);
            return tx.connectionResult(c -> JdbcGuardedStore.guarded(fences, rule, c, key, token,
                    conn -> work.run(tx), timeoutSeconds));
        }));
    }

    /**
     * Runs {@code work} under the guard rows of several keys, each with its own token (key →
     * token, e.g. a {@code MultiLock} group's {@code tokens()}), in one transaction on the calling
     * thread. The rows are locked in the canonical key order (unsigned UTF-8 byte order, whatever
     * the map's order), each key is judged by its own guard under the rule, and then either the
     * work runs and every guard advances to its key's token, or nothing runs and the transaction
     * rolls back.
     *
     * @return {@link io.fencegate.store.ExecutedAll} (each key's previous token, rows changed) or
     *         {@link Refused} naming every refused key, in the map's order, with its current token
     *         and fence
     * @throws IllegalArgumentException for no keys, more than {@code GuardedOp.MAX_ITEMS}, or a
     *         bad key or token (nothing runs)
     */
    public KeysResult runAll(Map<String, Long> tokens, GuardedWork work) {
        List<String> order = KeyGuards.lockOrder(tokens);
        Objects.requireNonNull(work, "work");
        try {
            return retryingDeadlocks(() -> dsl.transactionResult(cfg -> {
                DSLContext tx = DSL.using(cfg);
                Map<String, ItemState> locked = new LinkedHashMap<>();
                tx.connection(c -> {
                    for (String key : order) {
                        locked.put(key, fences.lockOrCreate(c, key, false, timeoutSeconds));
                    }
                });
                Refused refused = KeyGuards.refusals(rule, tokens, locked);
                if (refused != null) {
                    throw new KeyGuards.RefusedRollback(refused);
                }
                int rows = work.run(tx);
                tx.connection(c -> {
                    for (String key : order) {
                        fences.advance(c, key, null, tokens.get(key), timeoutSeconds);
                    }
                });
                return KeyGuards.executed(locked, rows);
            }));
        } catch (KeyGuards.RefusedRollback r) {
            return r.refused;
        }
    }

    /**
     * Runs a transaction, and runs it again when the database rolled it back to break a deadlock
     * (see {@link #backOff}); any other failure, or the last attempt's, is thrown.
     */
    static <T> T retryingDeadlocks(Supplier<T> transaction) {
        for (int attempt = 1; ; attempt++) {
            try {
                return transaction.get();
            } catch (DataAccessException e) {
                if (attempt >= ATTEMPTS || !isDeadlock(e)) {
                    throw e;
                }
                backOff(attempt);
            }
        }
    }

    /**
     * Waits a random while before running a rolled-back transaction again. On an application pool
     * in REPEATABLE READ (MySQL's default), every concurrent first user of a key deadlocks on the
     * gap of the missing guard row, and each round the database lets only one through: retried at
     * once, the others meet again. Spread out, they find the row created and simply queue on it.
     */
    private static void backOff(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2L << Math.min(attempt, 6)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying a guard-row transaction", e);
        }
    }

    private static boolean isDeadlock(DataAccessException e) {
        if (Transactions.isRetryable(e.sqlState())) {
            return true;
        }
        SQLException sql = e.getCause(SQLException.class);
        return sql != null && Transactions.isRetryable(sql.getSQLState());
    }

    static Dialect dialectOf(SQLDialect dialect) {
        return switch (dialect.family()) {
            case POSTGRES -> Dialect.POSTGRESQL;
            case MYSQL, MARIADB -> Dialect.MYSQL;
            case H2 -> Dialect.H2;
            default -> throw new IllegalArgumentException("fencegate guard rows support Postgres, MySQL/MariaDB and H2, not "
                    + dialect);
        };
    }
}
