package io.fencegate.gateway.http;

import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.http.GrantCheck.Access;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.gateway.metrics.GatewayMetrics.WriteOutcome;
import io.fencegate.store.Applied;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.Stale;
import io.fencegate.store.WriteResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/stores/{store}/writes}: many independent guarded writes in one request, each
 * judged and answered on its own, exactly as the same write sent alone ({@code PUT} or
 * {@code DELETE} of its item) would be. The answer is 200 with one result a write, in order:
 * {@code {"status":…,"body":…}}, the status and body its single write would have had.
 *
 * <p>Refused as a whole, writing nothing: unknown store 404, store not usable by the API key 403
 * (both before the body is read), body over {@code limits.maxBatchBytes} 413, a body that is not
 * {@code {"writes":[…]}} 400, more than {@code limits.maxBatchWrites} writes 413. Then each write, in
 * its single write's order: the API key's share of requests in flight (each write counts as a
 * request, the batch itself as the first) 429, its shape, key 400, token 428 / 400, the API key's
 * lock prefixes and the token's grant 403, its value over the store's limit 413, the guard 409.
 *
 * <p>The admitted writes go to the store together ({@code GuardedStore.writeAll}): a store that
 * judges many rows in one statement sends them as one round trip, still one guarded write per
 * item. Writes to one key in one batch are applied in the batch's order, each after the one
 * before has answered. Each store call is bounded by the request timeout, as a single write's.
 */
record WriteBatchRoutes(TokenGate gate, TenantShares shares, GatewayMetrics metrics, Bodies bodies, int maxKeyBytes,
                        long maxBodyBytes, int maxWrites, long maxBatchBytes, Duration timeout) {
    private static final Logger LOG = LoggerFactory.getLogger(WriteBatchRoutes.class);

    void post(RoutingContext ctx, StoreTarget target) {
        StoreBinding b = target.binding();
        int keyLimit = Math.min(maxKeyBytes, b.store().limits().maxKeyBytes());
        bodies.read(ctx, maxBatchBytes)
                .map(body -> WriteBatchBodies.parse(body, maxWrites, keyLimit))
                .compose(entries -> judge(ctx, b, entries))
                .onSuccess(results -> ctx.response().putHeader("Content-Type", "application/json")
                        .end(new JsonObject().put("results", results).encode()))
                .onFailure(ctx::fail);
    }

    /** Every write's answer, in order; never fails: a write's failure is its own result. */
    private Future<JsonArray> judge(RoutingContext ctx, StoreBinding b, List<WriteBatchBodies.Entry> entries) {
        int n = entries.size();
        JsonObject[] results = new JsonObject[n];
        List<Future<GuardedOp>> admitted = new ArrayList<>(n);
        Map<Grant, Future<Void>> grants = new HashMap<>();
        String bucket = shares.bucket(ctx);
        int taken = 0;
        for (int i = 0; i < n; i++) {
            // The batch holds one request of the key's share already; each further write takes one more,
            // as it would sent alone, so a batch is no way around limits.perKey.requests.
            Problem share = i == 0 ? null : shares.startRequest(bucket);
            if (share != null) {
                admitted.add(Future.failedFuture(share));
                continue;
            }
            taken += i == 0 ? 0 : 1;
            admitted.add(admit(ctx, b, entries.get(i), grants));
        }
        int toGive = taken;
        if (toGive > 0) {
            ctx.addEndHandler(done -> {
                for (int i = 0; i < toGive; i++) {
                    shares.endRequest(bucket);
                }
            });
        }
        return Future.join(admitted).transform(ignored -> {
            List<Integer> writing = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Future<GuardedOp> a = admitted.get(i);
                if (a.succeeded()) {
                    writing.add(i);
                } else {
                    results[i] = refused(b, a.cause());
                }
            }
            return write(ctx, b, writing, admitted, results);
        }).map(v -> {
            JsonArray array = new JsonArray(new ArrayList<>(n));
            for (JsonObject r : results) {
                array.add(r);
            }
            return array;
        });
    }

    private record Grant(String lock, long token) {}

    /** The write's checks after its shape, key and token (parsed already): its lock 403, grant 403, value 413. */
    private Future<GuardedOp> admit(RoutingContext ctx, StoreBinding b, WriteBatchBodies.Entry entry,
            Map<Grant, Future<Void>> grants) {
        if (entry.problem() != null) {
            return Future.failedFuture(entry.problem());
        }
        GuardedOp op = entry.op();
        String lock;
        try {
            lock = TokenGate.permitLock(ctx, b, op.key());
        } catch (Problem p) {
            return Future.failedFuture(p);
        }
        long valueLimit = Math.min(maxBodyBytes, b.store().limits().maxValueBytes());
        // One lookup for each lock and token, however many writes carry them.
        return grants.computeIfAbsent(new Grant(lock, op.token()), g -> gate.grant(ctx, g.lock(), g.token(), Access.WRITE))
                .compose(v -> !op.isDelete() && op.value().length > valueLimit
                        ? Future.failedFuture(Bodies.tooLarge(valueLimit)) : Future.succeededFuture(op));
    }

    /**
     * Writes the admitted ones in rounds: the first write of each key in the first round, the
     * second in the next, so writes to one key apply in the batch's order; a round is one
     * {@code writeAll}, so the store may send it as one statement.
     */
    private Future<Void> write(RoutingContext ctx, StoreBinding b, List<Integer> writing, List<Future<GuardedOp>> ops,
            JsonObject[] results) {
        List<List<Integer>> rounds = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i : writing) {
            int round = seen.merge(ops.get(i).result().key(), 1, Integer::sum) - 1;
            if (round == rounds.size()) {
                rounds.add(new ArrayList<>());
            }
            rounds.get(round).add(i);
        }
        Future<Void> chain = Future.succeededFuture();
        for (List<Integer> round : rounds) {
            chain = chain.compose(v -> round(ctx, b, round, ops, results));
        }
        return chain;
    }

    private Future<Void> round(RoutingContext ctx, StoreBinding b, List<Integer> round, List<Future<GuardedOp>> ops,
            JsonObject[] results) {
        List<GuardedOp> batch = round.stream().map(i -> ops.get(i).result()).toList();
        List<CompletionStage<WriteResult>> answers;
        try {
            answers = b.store().writeAll(batch);
        } catch (RuntimeException e) {
            round.forEach(i -> results[i] = refused(b, e));
            return Future.succeededFuture();
        }
        Context context = ctx.vertx().getOrCreateContext();
        List<Future<WriteResult>> done = new ArrayList<>(round.size());
        for (int j = 0; j < round.size(); j++) {
            int i = round.get(j);
            GuardedOp op = batch.get(j);
            done.add(Future.fromCompletionStage(answers.get(j), context).timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .andThen(ar -> results[i] = ar.succeeded() ? written(b, op, ar.result()) : refused(b, ar.cause())));
        }
        return Future.join(done).transform(ignored -> Future.succeededFuture());
    }

    /** What the single write answers: 200 with the previous token, or the 409 of the guard. */
    private JsonObject written(StoreBinding b, GuardedOp op, WriteResult result) {
        if (result instanceof Applied applied) {
            metrics.write(b.name(), WriteOutcome.APPLIED);
            return new JsonObject().put("status", 200).put("body", new JsonObject().put("applied", true)
                    .put("token", op.token()).put("previousToken", applied.previousToken()));
        }
        Stale stale = (Stale) result;
        metrics.writeStale(b.name(), op.key(), stale);
        return problem(ItemRoutes.stale(stale));
    }

    /** The problem a single write failing with {@code t} answers ({@link Failures#toProblem}). */
    private JsonObject refused(StoreBinding b, Throwable t) {
        Problem p = Failures.toProblem(t, b.name());
        if (p.status() < 500) {
            metrics.write(b.name(), WriteOutcome.REFUSED);
        } else if (p.status() == 500) {
            LOG.error("a write of a batch to store '{}' failed", b.name(), t);
        }
        return problem(p);
    }

    private static JsonObject problem(Problem p) {
        JsonObject result = new JsonObject().put("status", p.status()).put("body", p.body());
        if (p.retryAfterSeconds() >= 0) {
            result.put("retryAfter", p.retryAfterSeconds());
        }
        return result;
    }
}
