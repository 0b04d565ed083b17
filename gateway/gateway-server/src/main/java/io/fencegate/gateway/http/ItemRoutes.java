package io.fencegate.gateway.http;

import io.fencegate.gateway.http.GrantCheck.Access;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.gateway.metrics.GatewayMetrics.ReadOutcome;
import io.fencegate.gateway.metrics.GatewayMetrics.WriteOutcome;
import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.WriteResult;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * {@code PUT | GET | DELETE /v1/stores/{store}/items/{key}}: guarded writes, tombstones, plain and
 * fenced reads. Store calls complete on the store's own threads and are brought back to the event
 * loop; each is bounded by the request timeout. A record: its state is what the router gives it.
 */
record ItemRoutes(TokenGate gate, GatewayMetrics metrics, Bodies bodies, BodyBudget tempDisk, int maxKeyBytes,
                  long maxBodyBytes, Duration timeout) {

    void put(RoutingContext ctx, StoreTarget target) {
        guarded(ctx, target, (store, key, token) -> {
            long limit = Math.min(maxBodyBytes, store.limits().maxValueBytes());
            long declared = Bodies.declaredLength(ctx.request(), limit);
            if (StreamedBodies.worthIt(store, declared)) {
                return StreamedBodies.write(ctx, bodies, tempDisk, store, key, token, limit, declared, timeout);
            }
            return bodies.read(ctx, limit).compose(body -> call(ctx, store.write(key, token, bytes(body))));
        });
    }

    void delete(RoutingContext ctx, StoreTarget target) {
        guarded(ctx, target, (store, key, token) -> call(ctx, store.delete(key, token)));
    }

    /** What a PUT or DELETE does once its key, token and grant have passed. */
    @FunctionalInterface
    private interface GuardedCall {
        Future<WriteResult> run(GuardedStore store, String key, long token);
    }

    /**
     * A PUT or DELETE: key (400), token (428 / 400) and grant (403) checked in DESIGN.md's order,
     * then {@code call}; one answer, counted once, whichever step fails.
     */
    private void guarded(RoutingContext ctx, StoreTarget target, GuardedCall call) {
        StoreBinding b = target.binding();
        Future<WriteResult> done;
        try {
            String key = key(target);
            ctx.put(StoreActivity.KEY, key);
            long token = TokenGate.required(ctx);
            done = gate.admit(ctx, b, key, token, Access.WRITE).compose(v -> call.run(b.store(), key, token));
        } catch (Problem p) {
            done = Future.failedFuture(p);
        }
        done.onSuccess(r -> answerWrite(ctx, b.name(), r)).onFailure(t -> failWrite(ctx, b.name(), t));
    }

    /**
     * A plain read without a token; with one, a fenced read that claims the item (DESIGN.md). Both
     * need the item's lock under the API key's lock prefixes.
     */
    void get(RoutingContext ctx, StoreTarget target) {
        StoreBinding b = target.binding();
        String key;
        long token;
        try {
            key = key(target);
            token = FencingToken.of(ctx);
            if (token == 0) {
                TokenGate.permitLock(ctx, b, key);
            }
        } catch (Problem p) {
            if (ctx.request().headers().contains(FencingToken.HEADER)) {
                metrics.fencedRead(b.name(), ReadOutcome.REFUSED);
            }
            ctx.fail(p);
            return;
        }
        if (token == 0) {
            call(ctx, b.store().read(key)).onSuccess(r -> answerRead(ctx, r)).onFailure(ctx::fail);
            return;
        }
        gate.admit(ctx, b, key, token, Access.READ)
                .compose(v -> call(ctx, b.store().fencedRead(key, token)))
                .onSuccess(r -> {
                    metrics.fencedRead(b.name(), r instanceof Stale ? ReadOutcome.STALE : ReadOutcome.CLAIMED);
                    answerRead(ctx, r);
                })
                .onFailure(t -> {
                    if (t instanceof Problem p && p.status() < 500) {
                        metrics.fencedRead(b.name(), ReadOutcome.REFUSED);
                    }
                    ctx.fail(t);
                });
    }

    /** The percent-decoded key, within the gateway's and the store's limits; 400 otherwise. */
    private String key(StoreTarget target) {
        String key = PathDecoder.decode(target.rawRest(), Problem.BAD_KEY);
        StoreLimits storeLimits = target.binding().store().limits();
        try {
            new StoreLimits(Math.min(maxKeyBytes, storeLimits.maxKeyBytes()), storeLimits.maxValueBytes()).checkKey(key);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(Problem.BAD_KEY, e.getMessage());
        }
        return key;
    }

    private <T> Future<T> call(RoutingContext ctx, CompletionStage<T> stage) {
        return Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext())
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void answerWrite(RoutingContext ctx, String store, WriteResult result) {
        if (result instanceof Applied applied) {
            metrics.write(store, WriteOutcome.APPLIED);
            long token = FencingToken.of(ctx);
            ctx.response().putHeader("Content-Type", "application/json")
                    .end(new JsonObject().put("applied", true).put("token", token)
                            .put("previousToken", applied.previousToken()).encode());
        } else {
            metrics.writeStale(store, ctx.get(StoreActivity.KEY), (Stale) result);
            stale((Stale) result).send(ctx);
        }
    }

    private void failWrite(RoutingContext ctx, String store, Throwable t) {
        if (t instanceof Problem p && p.status() < 500) {
            metrics.write(store, WriteOutcome.REFUSED);
        }
        ctx.fail(t);
    }

    private static void answerRead(RoutingContext ctx, ReadResult result) {
        if (result instanceof Found found) {
            ctx.response()
                    .putHeader("Content-Type", "application/octet-stream")
                    .putHeader(FencingToken.HEADER, Long.toString(found.token()))
                    .end(Buffer.buffer(found.value()));
        } else if (result instanceof Missing missing) {
            new Problem(404, Problem.NOT_FOUND, "Not Found", "no such item")
                    .with("currentToken", missing.token()).with("fence", missing.fence()).send(ctx);
        } else {
            stale((Stale) result).send(ctx);
        }
    }

    static Problem stale(Stale stale) {
        String detail = stale.alreadyApplied()
                ? "token " + stale.attemptedToken() + " has already written this item (a retry of an applied write)"
                : "token " + stale.attemptedToken() + " is stale: the item's token is " + stale.currentToken()
                        + " and its fence " + stale.fence();
        return new Problem(409, Problem.STALE, "Conflict", detail)
                .with("currentToken", stale.currentToken()).with("fence", stale.fence());
    }

    private static byte[] bytes(Buffer body) {
        return body.getBytes();
    }
}
