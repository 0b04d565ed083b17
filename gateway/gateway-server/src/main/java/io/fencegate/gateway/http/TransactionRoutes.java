package io.fencegate.gateway.http;

import io.fencegate.gateway.http.GrantCheck.Access;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKeyAuthHandler;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.gateway.metrics.GatewayMetrics.ReadOutcome;
import io.fencegate.gateway.metrics.GatewayMetrics.WriteOutcome;
import io.fencegate.store.Applied;
import io.fencegate.store.Claimed;
import io.fencegate.store.Committed;
import io.fencegate.store.Found;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Refused;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /v1/stores/{store}/transactions} (puts and deletes of several items, all or nothing)
 * and {@code POST /v1/stores/{store}/fenced-reads} (fenced reads of several items that claim them
 * all or none). Each item carries its own key and token in the body ({@link TransactionBodies}).
 * Checks, the first failure answers: unknown store 404, store not usable by the API key 403, store
 * without transactions 400; the API key may use no lock of the store 403, before a byte of the body
 * is read or budgeted; body over {@code limits.maxTransactionBytes} 413; malformed body, key, token
 * or a key twice 400, more than {@code limits.maxTransactionItems} items 413; then every item's
 * lock against the API key's lock prefixes, all before any grant is looked up, and every token's
 * grant 403; the guards 409, naming every refused item.
 */
record TransactionRoutes(TokenGate gate, GatewayMetrics metrics, Bodies bodies, int maxKeyBytes, int maxItems,
                         long maxBodyBytes, Duration timeout) {

    void transact(RoutingContext ctx, StoreTarget target) {
        StoreBinding b = target.binding();
        Future<Void> done = beforeBody(ctx, b).compose(v -> bodies.read(ctx, maxBodyBytes)).compose(body -> {
            List<GuardedOp> ops = TransactionBodies.ops(body, limits(b));
            return gate.admitAll(ctx, b, ops.stream().map(GuardedOp::key).toList(), ops.stream().map(GuardedOp::token).toList(), Access.WRITE)
                    .compose(v -> call(ctx, b.store().transact(ops)))
                    .map(result -> {
                        if (result instanceof Committed committed) {
                            metrics.write(b.name(), WriteOutcome.APPLIED);
                            answerCommitted(ctx, ops, committed);
                        } else {
                            Refused refused = (Refused) result;
                            refused.items().forEach(item -> metrics.writeStale(b.name(), item.key(), item.stale()));
                            refusal(refused, ops.size(), "nothing was applied").send(ctx);
                        }
                        return null;
                    });
        });
        done.onFailure(t -> {
            if (t instanceof Problem p && p.status() < 500 && p.status() != 404) {
                metrics.write(b.name(), WriteOutcome.REFUSED);
            }
            ctx.fail(t);
        });
    }

    void fencedReads(RoutingContext ctx, StoreTarget target) {
        StoreBinding b = target.binding();
        Future<Void> done = beforeBody(ctx, b).compose(v -> bodies.read(ctx, maxBodyBytes)).compose(body -> {
            List<ItemClaim> claims = TransactionBodies.claims(body, limits(b));
            return gate.admitAll(ctx, b, claims.stream().map(ItemClaim::key).toList(),
                            claims.stream().map(ItemClaim::token).toList(), Access.READ)
                    .compose(v -> call(ctx, b.store().fencedReadAll(claims)))
                    .map(result -> {
                        if (result instanceof Claimed claimed) {
                            metrics.fencedRead(b.name(), ReadOutcome.CLAIMED);
                            answerClaimed(ctx, claims, claimed);
                        } else {
                            metrics.fencedRead(b.name(), ReadOutcome.STALE);
                            refusal((Refused) result, claims.size(), "no fence was raised").send(ctx);
                        }
                        return null;
                    });
        });
        done.onFailure(t -> {
            if (t instanceof Problem p && p.status() < 500 && p.status() != 404) {
                metrics.fencedRead(b.name(), ReadOutcome.REFUSED);
            }
            ctx.fail(t);
        });
    }

    /**
     * What can be refused before the body is read: a store without transactions (400, with its
     * reason), and an API key that may use no lock of the store (403); for a store with one lock,
     * that lock.
     */
    private static Future<Void> beforeBody(RoutingContext ctx, StoreBinding b) {
        if (!b.store().transacts()) {
            return Future.failedFuture(Problem.badRequest(Problem.NO_TRANSACTIONS, b.store().transactionsUnsupportedReason()));
        }
        boolean allowed = b.lock() != null ? Principal.of(ctx).mayUseItem(b.name(), b.lock())
                : Principal.of(ctx).mayUseSomeLockUnder(b.lockPrefix());
        if (!allowed) {
            return Future.failedFuture(new Problem(403, ApiKeyAuthHandler.FORBIDDEN, "Forbidden",
                    "this API key may use no lock of store '" + b.name() + "'"));
        }
        return Future.succeededFuture();
    }

    private TransactionBodies.Limits limits(StoreBinding b) {
        return new TransactionBodies.Limits(Math.min(maxKeyBytes, b.store().limits().maxKeyBytes()), maxItems);
    }

    private <T> Future<T> call(RoutingContext ctx, CompletionStage<T> stage) {
        return Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext())
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void answerCommitted(RoutingContext ctx, List<GuardedOp> ops, Committed committed) {
        JsonArray items = new JsonArray();
        for (int i = 0; i < ops.size(); i++) {
            Applied applied = committed.applied().get(i);
            items.add(new JsonObject().put("key", ops.get(i).key()).put("token", ops.get(i).token())
                    .put("previousToken", applied.previousToken()));
        }
        ctx.response().putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("committed", true).put("items", items).encode());
    }

    private static void answerClaimed(RoutingContext ctx, List<ItemClaim> claims, Claimed claimed) {
        JsonArray items = new JsonArray();
        for (int i = 0; i < claims.size(); i++) {
            ReadResult read = claimed.items().get(i);
            JsonObject item = new JsonObject().put("key", claims.get(i).key());
            if (read instanceof Found found) {
                item.put("found", true).put("token", found.token()).put("fence", found.fence())
                        .put("valueBase64", Base64.getEncoder().encodeToString(found.value()));
            } else {
                io.fencegate.store.Missing missing = (io.fencegate.store.Missing) read;
                item.put("found", false).put("token", missing.token()).put("fence", missing.fence());
            }
            items.add(item);
        }
        ctx.response().putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("claimed", true).put("items", items).encode());
    }

    /** 409, with every refused item: its key, the token it carried, its current token and fence. */
    static Problem refusal(Refused refused, int total, String consequence) {
        JsonArray items = new JsonArray();
        refused.items().forEach(item -> items.add(new JsonObject().put("key", item.key())
                .put("token", item.stale().attemptedToken())
                .put("currentToken", item.stale().currentToken()).put("fence", item.stale().fence())));
        return new Problem(409, Problem.STALE, "Conflict", refused.items().size() + " of " + total
                + " items refused their token: " + consequence).with("refused", items);
    }
}
