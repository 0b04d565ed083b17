package io.fencegate.gateway.http;

import io.fencegate.gateway.http.GrantCheck.Access;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKeyAuthHandler;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.gateway.metrics.GatewayMetrics.WriteOutcome;
import io.fencegate.store.Executed;
import io.fencegate.store.NamedSql;
import io.fencegate.store.Stale;
import io.fencegate.store.StatementResult;
import io.fencegate.store.StoreLimits;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /v1/stores/{store}/statements/{name}} with {@code {"key":K,"params":{…}}}: runs a
 * statement from config, its parameters bound (never spliced into the SQL), in one transaction
 * that holds the guard row of {@code K}. The key is in the body, so the checks run: unknown store
 * or statement 404, token 428/400, 403 before the body (the API key may use no lock of the store;
 * for a store with one lock, the whole lock and grant check), body 413/400, key 400, lock and grant
 * 403, guard 409. No byte of the body is read, budgeted or invited ({@code 100 Continue}) before the
 * first 403.
 */
record StatementRoutes(TokenGate gate, GatewayMetrics metrics, Bodies bodies, int maxKeyBytes, Duration timeout) {
    /** A key and a few scalar parameters: far less than this. */
    static final long MAX_BODY = 64 * 1024;

    void post(RoutingContext ctx, StoreTarget target) {
        StoreBinding b = target.binding();
        Future<StatementResult> done;
        try {
            String name = PathDecoder.decode(target.rawRest(), Problem.BAD_REQUEST);
            NamedSql sql = b.statement(name).orElseThrow(() -> new Problem(404, Problem.UNKNOWN_STATEMENT,
                    "Not Found", "store '" + b.name() + "' has no statement named '" + PathDecoder.shorten(name)
                            + "'; configured: " + b.named().keySet()));
            long token = TokenGate.required(ctx);
            done = beforeBody(ctx, b, token).compose(v -> bodies.read(ctx, MAX_BODY)).compose(body -> {
                Call call = Call.parse(body, Math.min(maxKeyBytes, b.store().limits().maxKeyBytes()));
                ctx.put(StoreActivity.KEY, call.key());
                return gate.admit(ctx, b, call.key(), token, Access.WRITE)
                        .compose(v -> Future.fromCompletionStage(
                                b.statements().execute(call.key(), token, sql, call.params()),
                                ctx.vertx().getOrCreateContext()))
                        .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
            });
        } catch (Problem p) {
            done = Future.failedFuture(p);
        }
        done.onSuccess(r -> answer(ctx, b.name(), token(ctx), r)).onFailure(t -> {
            if (t instanceof Problem p && p.status() < 500 && p.status() != 404) {
                metrics.write(b.name(), WriteOutcome.REFUSED);
            }
            ctx.fail(t);
        });
    }

    /**
     * What can be authorized before the key is known: a store with one lock, all of it (its lock and
     * the token's grant); otherwise that the API key may use some lock of the store.
     */
    private Future<Void> beforeBody(RoutingContext ctx, StoreBinding b, long token) {
        if (b.lock() != null) {
            return gate.admit(ctx, b, "", token, Access.WRITE);
        }
        if (!Principal.of(ctx).mayUseSomeLockUnder(b.lockPrefix())) {
            return Future.failedFuture(new Problem(403, ApiKeyAuthHandler.FORBIDDEN, "Forbidden",
                    "this API key may use no lock of store '" + b.name() + "'"));
        }
        return Future.succeededFuture();
    }

    private void answer(RoutingContext ctx, String store, long token, StatementResult result) {
        if (result instanceof Executed executed) {
            metrics.write(store, WriteOutcome.APPLIED);
            ctx.response().putHeader("Content-Type", "application/json")
                    .end(new JsonObject().put("applied", true).put("rows", executed.rows())
                            .put("token", token).put("previousToken", executed.previousToken()).encode());
        } else {
            metrics.writeStale(store, ctx.get(StoreActivity.KEY), (Stale) result);
            ItemRoutes.stale((Stale) result).send(ctx);
        }
    }

    private static long token(RoutingContext ctx) {
        return FencingToken.of(ctx);
    }

    /** The request body: the guard row's key and the statement's parameters (JSON scalars only). */
    private record Call(String key, Map<String, Object> params) {
        static Call parse(Buffer body, int maxKeyBytes) {
            JsonObject json;
            try {
                json = body.toJsonObject();
            } catch (DecodeException | ClassCastException e) {
                throw Problem.badRequest(Problem.BAD_REQUEST, "the body must be a JSON object {\"key\":…,\"params\":{…}}");
            }
            if (json == null || !(json.getValue("key") instanceof String key)) {
                throw Problem.badRequest(Problem.BAD_KEY, "\"key\" must be a string");
            }
            try {
                new StoreLimits(maxKeyBytes, 1).checkKey(key);
            } catch (IllegalArgumentException e) {
                throw Problem.badRequest(Problem.BAD_KEY, e.getMessage());
            }
            Object rawParams = json.getValue("params");
            if (rawParams != null && !(rawParams instanceof JsonObject)) {
                throw Problem.badRequest(Problem.BAD_REQUEST, "\"params\" must be a JSON object");
            }
            Map<String, Object> params = new HashMap<>();
            if (rawParams != null) {
                for (Map.Entry<String, Object> e : (JsonObject) rawParams) {
                    Object v = e.getValue();
                    if (v != null && !(v instanceof String || v instanceof Number || v instanceof Boolean)) {
                        throw Problem.badRequest(Problem.BAD_REQUEST,
                                "parameter '" + e.getKey() + "' must be a string, number, boolean or null");
                    }
                    params.put(e.getKey(), v);
                }
            }
            return new Call(key, params);
        }
    }
}
