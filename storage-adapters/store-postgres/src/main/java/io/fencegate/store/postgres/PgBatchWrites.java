package io.fencegate.store.postgres;

import io.fencegate.store.GuardRule;
import io.fencegate.store.WriteResult;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.ItemState;
import io.fencegate.store.backend.WriteCoalescer;
import io.fencegate.store.sql.PostgresGuardSql;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The reactive store's guarded writes, a batch of {@link WriteCoalescer} at a time, each batch one
 * statement of {@link PostgresGuardSql}: the SQL decides (one round trip), and each answer is
 * {@link GuardDecision}'s, checked against it.
 */
final class PgBatchWrites {

    private final Pool pool;
    private final GuardRule rule;
    private final String writeSql;
    private final String batchSql;

    PgBatchWrites(Pool pool, GuardRule rule) {
        this.pool = pool;
        this.rule = rule;
        this.writeSql = PostgresGuardSql.write(rule == GuardRule.STRICT);
        this.batchSql = PostgresGuardSql.writeBatch(rule == GuardRule.STRICT);
    }

    /**
     * One batch of {@link WriteCoalescer}: a lone write as the single-row upsert (the statement
     * pgbench is compared on), more as one multi-row upsert, one round trip and one commit.
     * A batch the database refuses as a whole for any reason but an unreachable server (a
     * deadlock, one row it cannot take) is run again write by write, so each write gets its own
     * answer or its own error. A lost connection fails every write of the batch: the statement is
     * one transaction, so all of its rows applied or none (a failure may hide either, as it may
     * for a single write).
     */
    CompletionStage<?> run(List<WriteCoalescer.Write> batch) {
        if (batch.size() == 1) {
            return answer(batch.get(0)).toCompletionStage();
        }
        return many(batch).toCompletionStage();
    }

    private Future<Void> answer(WriteCoalescer.Write w) {
        return single(w.key(), w.token(), buffer(w.value())).transform(ar -> {
            w.settle(ar.result(), ar.cause());
            return Future.succeededFuture();
        });
    }

    private static Buffer buffer(byte[] value) {
        return value == null ? null : Buffer.buffer(value);
    }

    private Future<WriteResult> single(String key, long token, Buffer value) {
        return pool.preparedQuery(writeSql).execute(Tuple.of(key, value, token)).compose(rows -> rows.size() == 1
                ? Future.succeededFuture(applied(token, rows.iterator().next().getLong(0)))
                : current(new String[] {key}).map(states -> refused(key, token, states)));
    }

    private Future<Void> many(List<WriteCoalescer.Write> batch) {
        int n = batch.size();
        String[] keys = new String[n];
        Buffer[] values = new Buffer[n];
        Long[] tokens = new Long[n];
        for (int i = 0; i < n; i++) {
            WriteCoalescer.Write w = batch.get(i);
            keys[i] = w.key();
            values[i] = buffer(w.value());
            tokens[i] = w.token();
        }
        return pool.preparedQuery(batchSql).execute(Tuple.of(keys, values, tokens)).transform(ran -> {
            if (ran.succeeded()) {
                return answerBatch(batch, ran.result());
            }
            // Nothing of the batch applied (one statement): singles may run it again.
            return ran.cause() instanceof PgException pg && !PgGuardedStore.unavailable(pg)
                    ? Future.join(batch.stream().map(this::answer).toList()).mapEmpty()
                    : failAll(batch, ran.cause());
        });
    }

    /** Applied writes are answered at once; the refused ones after a look at what refused them. */
    private Future<Void> answerBatch(List<WriteCoalescer.Write> batch, RowSet<Row> rows) {
        Map<String, Long> previous = new HashMap<>(rows.size() * 2);
        for (Row r : rows) {
            previous.put(r.getString(0), r.getLong(1));
        }
        List<WriteCoalescer.Write> refused = new ArrayList<>();
        for (WriteCoalescer.Write w : batch) {
            Long before = previous.get(w.key());
            if (before == null) {
                refused.add(w);
            } else {
                complete(w, () -> applied(w.token(), before));
            }
        }
        if (refused.isEmpty()) {
            return Future.succeededFuture();
        }
        return current(refused.stream().map(WriteCoalescer.Write::key).toArray(String[]::new)).map(states -> {
            refused.forEach(w -> complete(w, () -> refused(w.key(), w.token(), states)));
            return null;
        });
    }

    private static <T> Future<T> failAll(List<WriteCoalescer.Write> batch, Throwable e) {
        batch.forEach(w -> w.settle(null, e));
        return Future.failedFuture(e);
    }

    /** Completes {@code w} with the decision, or with what it threw (a disagreement with GuardDecision). */
    private static void complete(WriteCoalescer.Write w, Supplier<WriteResult> decision) {
        try {
            w.answer().complete(decision.get());
        } catch (RuntimeException e) {
            w.answer().completeExceptionally(e);
        }
    }

    /**
     * The SQL applied it; {@code previousToken} is the row's token before (0: it created the row).
     * The old fence is not returned; GuardDecision checks the SQL's answer on the token.
     */
    private WriteResult applied(long token, long previousToken) {
        return GuardDecision.write(rule, ItemState.of(previousToken, previousToken), token, true);
    }

    /**
     * The SQL refused it. The token and fence are read after the refusal: they only rise, so
     * they still refuse it, and the answer is that of a write judged at the moment of the read.
     */
    private WriteResult refused(String key, long token, Map<String, ItemState> current) {
        ItemState state = current.get(key);
        if (state == null) {
            throw new IllegalStateException("row of " + key + " refused a write, then vanished");
        }
        return GuardDecision.write(rule, state, token, false);
    }

    /** The token and fence of {@code keys}' rows. */
    private Future<Map<String, ItemState>> current(String[] keys) {
        return pool.preparedQuery(PostgresGuardSql.CURRENT).execute(Tuple.of((Object) keys)).map(rows -> {
            Map<String, ItemState> states = new HashMap<>(rows.size() * 2);
            for (Row r : rows) {
                states.put(r.getString(0), ItemState.of(r.getLong(1), r.getLong(2)));
            }
            return states;
        });
    }

}
