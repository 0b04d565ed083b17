package io.fencegate.store.postgres;

import static io.fencegate.store.sql.PostgresGuardSql.ADVANCE_ITEM;
import static io.fencegate.store.sql.PostgresGuardSql.CREATE_ITEM;
import static io.fencegate.store.sql.PostgresGuardSql.LOCK_ITEM;
import static io.fencegate.store.sql.PostgresGuardSql.RAISE_ITEM_FENCE;

import io.fencegate.store.ClaimResult;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.Refused;
import io.fencegate.store.TransactionResult;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.ItemState;
import io.fencegate.store.backend.ItemTransactions;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.Arrays;
import java.util.List;

/**
 * Transactions across items and fenced multi-reads on the reactive client: one
 * {@link Pool#withTransaction} that locks every item's row in {@link ItemTransactions#KEY_ORDER}
 * (one statement after the other on the transaction's connection), decides over all of them, and
 * then changes every row or rolls back, the rows it created included.
 */
final class PgItemTransactions {
    /** A row created and lost again (its creator rolled back) this often in a row is something else. */
    private static final int MAX_CREATE_RACES = 5;

    private final Pool pool;
    private final GuardRule rule;

    PgItemTransactions(Pool pool, GuardRule rule) {
        this.pool = pool;
        this.rule = rule;
    }

    /** Ends withTransaction with a rollback while handing the refusal on. */
    private static final class RolledBack extends RuntimeException {
        final Object result;

        RolledBack(Object result) {
            super(null, null, false, false);
            this.result = result;
        }
    }

    Future<TransactionResult> transact(List<GuardedOp> ops) {
        int[] order = ItemTransactions.lockOrderOfOps(ops);
        return pool.<TransactionResult>withTransaction(conn -> lockAll(conn, ops.stream().map(GuardedOp::key).toList(), order)
                .compose(states -> {
                    TransactionResult decision = ItemTransactions.decide(rule, ops, Arrays.asList(states));
                    if (decision instanceof Refused) {
                        return Future.failedFuture(new RolledBack(decision));
                    }
                    Future<Void> done = Future.succeededFuture();
                    for (int i : order) {
                        GuardedOp op = ops.get(i);
                        Tuple args = Tuple.of(op.key(), op.value() == null ? null : Buffer.buffer(op.value()), op.token());
                        done = done.compose(v -> conn.preparedQuery(ADVANCE_ITEM).execute(args).mapEmpty());
                    }
                    return done.map(v -> decision);
                })).recover(PgItemTransactions::refusal);
    }

    Future<ClaimResult> fencedReadAll(List<ItemClaim> claims) {
        int[] order = ItemTransactions.lockOrderOfClaims(claims);
        return pool.<ClaimResult>withTransaction(conn -> lockAll(conn, claims.stream().map(ItemClaim::key).toList(), order)
                .compose(states -> {
                    ClaimResult decision = ItemTransactions.decideClaims(claims, Arrays.asList(states));
                    if (decision instanceof Refused) {
                        return Future.failedFuture(new RolledBack(decision));
                    }
                    Future<Void> done = Future.succeededFuture();
                    for (int i : order) {
                        ItemClaim claim = claims.get(i);
                        if (GuardDecision.raisesFence(states[i], claim.token())) {
                            done = done.compose(v -> conn.preparedQuery(RAISE_ITEM_FENCE)
                                    .execute(Tuple.of(claim.key(), claim.token())).mapEmpty());
                        }
                    }
                    return done.map(v -> decision);
                })).recover(PgItemTransactions::refusal);
    }

    @SuppressWarnings("unchecked") // a RolledBack carries the result of the transaction that threw it
    private static <T> Future<T> refusal(Throwable failure) {
        return failure instanceof RolledBack r ? Future.succeededFuture((T) r.result) : Future.failedFuture(failure);
    }

    /** Locks the rows of {@code keys} in {@code order}, one at a time; their states, indexed like {@code keys}. */
    private static Future<ItemState[]> lockAll(SqlConnection conn, List<String> keys, int[] order) {
        ItemState[] states = new ItemState[keys.size()];
        Future<Void> locked = Future.succeededFuture();
        for (int i : order) {
            locked = locked.compose(v -> lockOrCreate(conn, keys.get(i), 0).map(state -> {
                states[i] = state;
                return null;
            }));
        }
        return locked.map(v -> states);
    }

    private static Future<ItemState> lockOrCreate(SqlConnection conn, String key, int races) {
        return conn.preparedQuery(LOCK_ITEM).execute(Tuple.of(key)).compose(rows -> {
            if (rows.size() > 0) {
                Row r = rows.iterator().next();
                Buffer value = r.getBuffer(0);
                return Future.succeededFuture(new ItemState(r.getLong(1), r.getLong(2), value == null ? null : value.getBytes()));
            }
            return conn.preparedQuery(CREATE_ITEM).execute(Tuple.of(key)).compose(created -> {
                if (created.size() > 0) {
                    return Future.succeededFuture(ItemState.ABSENT);
                }
                if (races >= MAX_CREATE_RACES) {
                    return Future.failedFuture(new IllegalStateException("row of " + key + " vanished after a creation race"));
                }
                // Another transaction created it and committed (ON CONFLICT waited for it): lock that row.
                return lockOrCreate(conn, key, races + 1);
            });
        });
    }
}
