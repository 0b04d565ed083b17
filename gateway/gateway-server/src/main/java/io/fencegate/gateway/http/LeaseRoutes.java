package io.fencegate.gateway.http;

import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKeyAuthHandler;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseGroupIds;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LockNames;
import io.vertx.core.Future;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code POST /v1/leases}, {@code POST /v1/leases/{leaseId}/renew}, {@code DELETE /v1/leases/{leaseId}}; a
 * body with {@code "locks"} and an id that is a group's ({@link LeaseGroupIds}) go to {@link GroupLeaseRoutes}.
 * A record, like the store routes: its state is what the router gives it.
 */
record LeaseRoutes(LeaseIssuer issuer, GatewayMetrics metrics, Duration maxTtl, Duration maxWait, Duration timeout,
                   int maxLockBytes, Function<String, Duration> lockDelays, TenantShares shares, GroupLeaseRoutes groups) {

    LeaseRoutes(LeaseIssuer issuer, GatewayMetrics metrics, Duration maxTtl, Duration maxWait, Duration timeout,
            int maxLockBytes, Function<String, Duration> lockDelays, TenantShares shares) {
        this(issuer, metrics, maxTtl, maxWait, timeout, maxLockBytes, lockDelays, shares,
                new GroupLeaseRoutes(issuer, metrics, timeout, maxLockBytes, lockDelays, shares));
    }

    /** The longest lock every issuer takes, in UTF-8 bytes: the issuers' one lock-name rule. */
    static final int ISSUER_MAX_LOCK_BYTES = LockNames.MAX_BYTES;
    private static final long MIN_TTL_MS = 100;

    void acquire(RoutingContext ctx) {
        JsonObject json;
        try {
            json = ctx.body().asJsonObject();
        } catch (DecodeException | ClassCastException e) {
            json = null;
        }
        if (json == null) {
            ctx.fail(Problem.badRequest(Problem.BAD_REQUEST, "the body must be a JSON object {\"lock\",\"ttlMs\",\"waitMs\"}"));
            return;
        }
        // "locks" asks for a group: every lock or none (GroupLeaseRoutes).
        boolean group = json.containsKey("locks");
        List<String> locks;
        LeaseShape shape;
        long ttlMs;
        long waitMs;
        try {
            if (group && json.containsKey("lock")) {
                throw Problem.badRequest(Problem.BAD_REQUEST, "give \"lock\" or \"locks\", not both");
            }
            shape = LeaseShape.of(json);
            locks = group ? groups.locks(json.getValue("locks")) : List.of(lock(json.getValue("lock")));
            if (!group) {
                shape.checkName(locks.get(0));
            }
            ttlMs = millis(json, "ttlMs", null, MIN_TTL_MS, maxTtl.toMillis());
            waitMs = millis(json, "waitMs", 0L, 0, maxWait.toMillis());
        } catch (Problem p) {
            ctx.fail(p);
            return;
        }
        // A semaphore's name and every slot's lock: a permit may be any slot, and the slot's lock
        // is what its token writes under.
        for (String lock : group ? locks : shape.locksCovered(locks.get(0))) {
            if (!Principal.of(ctx).mayUseLock(lock)) {
                ctx.fail(LeaseAccess.forbidden(lock));
                return;
            }
        }
        // The key's shares, before any work: lock names lately used, its live leases (each of a group's),
        // and its acquires waiting for a lock.
        String bucket = shares.bucket(ctx);
        Problem refused = null;
        for (String lock : locks) {
            refused = shares.useLockName(bucket, lock, ttlMs);
            if (refused != null) {
                ctx.fail(refused);
                return;
            }
        }
        refused = shares.leases().reserve(bucket, locks.size());
        boolean waits = waitMs > 0;
        if (refused == null && waits) {
            refused = shares.startWait(bucket);
            if (refused != null) {
                shares.leases().answered(bucket, locks.size(), List.of());
            }
        }
        if (refused != null) {
            ctx.fail(refused);
            return;
        }
        if (group) {
            groups.acquire(ctx, locks, ttlMs, waitMs, bucket, waits);
            return;
        }
        String lock = locks.get(0);
        Duration lockDelay = lockDelays.apply(lock);
        call(ctx, shape.acquire(issuer, lock, Duration.ofMillis(ttlMs), Duration.ofMillis(waitMs), lockDelay),
                timeout.plusMillis(waitMs))
                .onComplete(done -> {
                    if (waits) {
                        shares.endWait(bucket);
                    }
                    shares.leases().answered(bucket, done.succeeded() ? done.result().orElse(null) : null);
                })
                .onSuccess(granted -> {
                    if (granted.isEmpty()) {
                        metrics.leaseDenied();
                        new Problem(423, Problem.LOCK_HELD, "Locked", shape.held(lock, waitMs)).send(ctx);
                        return;
                    }
                    metrics.leaseGranted();
                    Lease lease = granted.get();
                    ctx.response().setStatusCode(201).putHeader("Content-Type", "application/json")
                            .end(LeaseShape.granted(lease).encode());
                })
                .onFailure(error -> ctx.fail(unwrap(error) instanceof UnsupportedOperationException
                        ? shape.unsupported(issuer, lock, lockDelay) : error));
    }

    void renew(RoutingContext ctx) {
        String leaseId = ctx.pathParam("leaseId");
        if (LeaseGroupIds.isGroupId(leaseId)) {
            groups.renew(ctx, leaseId);
            return;
        }
        permitted(ctx, leaseId, () -> call(ctx, issuer.renew(leaseId), timeout)
                .onSuccess(renewed -> {
                    if (renewed.isEmpty()) {
                        shares.leases().ended(leaseId);
                        gone(ctx);
                    } else {
                        shares.leases().renewed(leaseId, renewed.get().expiresAt());
                        ctx.response().putHeader("Content-Type", "application/json")
                                .end(new JsonObject().put("expiresAt", renewed.get().expiresAt()).encode());
                    }
                })
                .onFailure(ctx::fail));
    }

    void release(RoutingContext ctx) {
        String leaseId = ctx.pathParam("leaseId");
        if (LeaseGroupIds.isGroupId(leaseId)) {
            groups.release(ctx, leaseId);
            return;
        }
        permitted(ctx, leaseId, () -> call(ctx, issuer.release(leaseId), timeout)
                .onSuccess(released -> {
                    shares.leases().ended(leaseId);
                    if (released) {
                        ctx.response().setStatusCode(204).end();
                    } else {
                        gone(ctx);
                    }
                })
                .onFailure(ctx::fail));
    }

    /** Runs {@code then} once the key is known to be allowed the lease's lock ({@link LeaseAccess}). */
    private void permitted(RoutingContext ctx, String leaseId, Runnable then) {
        new LeaseAccess(issuer, timeout).permit(ctx, leaseId).onSuccess(ok -> {
            if (ok) {
                then.run();
            }
        }).onFailure(ctx::fail);
    }

    /** Default page size of {@code GET /v1/leases}. */
    static final int DEFAULT_LIST_LIMIT = 100;

    /**
     * {@code GET /v1/leases?prefix=&limit=&cursor=}: the live leases from the issuer (every
     * gateway's), one page, only under lock prefixes the API key may use.
     */
    void list(RoutingContext ctx) {
        String requested = ctx.queryParams().get("prefix");
        String cursor = ctx.queryParams().get("cursor");
        int limit;
        try {
            limit = limit(ctx.queryParams().get("limit"));
        } catch (Problem p) {
            ctx.fail(p);
            return;
        }
        Principal principal = Principal.of(ctx);
        java.util.Optional<String> prefix = principal.listablePrefix(requested == null ? "" : requested);
        if (prefix.isEmpty()) {
            ctx.fail(new Problem(403, ApiKeyAuthHandler.FORBIDDEN, "Forbidden",
                    "this API key may not list locks under '" + PathDecoder.shorten(requested == null ? "" : requested)
                            + "': ask for a prefix under one of its lockPrefixes"));
            return;
        }
        CompletionStage<io.fencegate.issuer.LeasePage> listed;
        try {
            listed = issuer.list(prefix.get(), cursor, limit);
        } catch (IllegalArgumentException e) {
            listed = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        call(ctx, listed, timeout).onSuccess(page -> {
            io.vertx.core.json.JsonArray leases = new io.vertx.core.json.JsonArray();
            for (io.fencegate.issuer.LeaseInfo lease : page.leases()) {
                if (principal.mayUseLock(lease.lock())) { // defence in depth: the prefix already scoped it
                    leases.add(new JsonObject().put("lock", lease.lock()).put("token", lease.token())
                            .put("expiresAt", lease.expiresAt()).put("grantedBy", lease.grantedBy())
                            .put("mode", lease.mode().wireName()));
                }
            }
            JsonObject body = new JsonObject().put("prefix", prefix.get()).put("leases", leases);
            page.next().ifPresent(next -> body.put("next", next));
            ctx.response().putHeader("Content-Type", "application/json").end(body.encode());
        }).onFailure(error -> ctx.fail(error instanceof IllegalArgumentException
                || error.getCause() instanceof IllegalArgumentException
                ? Problem.badRequest(Problem.BAD_REQUEST, (error instanceof IllegalArgumentException ? error : error.getCause()).getMessage())
                : error));
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static int limit(String value) {
        if (value == null) {
            return DEFAULT_LIST_LIMIT;
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= LeaseIssuer.MAX_LIST_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw Problem.badRequest(Problem.BAD_REQUEST, "limit must be an integer from 1 to " + LeaseIssuer.MAX_LIST_LIMIT);
    }

    private static void gone(RoutingContext ctx) {
        LeaseAccess.gone(ctx);
    }

    private static <T> Future<T> call(RoutingContext ctx, CompletionStage<T> stage, Duration bound) {
        return Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext())
                .timeout(bound.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The largest lock a lease may name, in UTF-8 bytes: the lock of the longest key any store
     * accepts ({@code {store}/{key}} or a store's own lock), and never less than maxKeyBytes. Keys and
     * locks follow one rule, so every item the gateway accepts can be leased. Fails, naming the
     * setting, when that is more than the issuer takes.
     */
    static int maxLockBytes(int maxKeyBytes, List<StoreBinding> stores) {
        int max = maxKeyBytes;
        for (StoreBinding b : stores) {
            int lock = b.maxLockBytes(maxKeyBytes);
            if (lock > ISSUER_MAX_LOCK_BYTES) {
                String store = PathDecoder.shorten(b.name());
                throw new IllegalArgumentException((b.lock() != null
                        ? "stores." + store + ".lock is " + lock + " UTF-8 bytes"
                        : "limits.maxKeyBytes is " + maxKeyBytes + ": the locks {store}/{key} of store '" + store
                                + "' would be up to " + lock + " UTF-8 bytes")
                        + ", and the issuer takes at most " + ISSUER_MAX_LOCK_BYTES);
            }
            max = Math.max(max, lock);
        }
        return Math.min(max, ISSUER_MAX_LOCK_BYTES);
    }

    private String lock(Object value) {
        if (!(value instanceof String lock) || lock.isEmpty()) {
            throw Problem.badRequest(Problem.BAD_REQUEST, "\"lock\" must be a non-empty string");
        }
        if (lock.getBytes(StandardCharsets.UTF_8).length > maxLockBytes || lock.indexOf('\0') >= 0) {
            throw Problem.badRequest(Problem.BAD_REQUEST,
                    "\"lock\" must be at most " + maxLockBytes + " UTF-8 bytes, without NUL");
        }
        return lock;
    }

    /** An integral JSON number within [min, max]; {@code fallback} when absent (null: required). */
    private static long millis(JsonObject json, String name, Long fallback, long min, long max) {
        Object value = json.getValue(name);
        if (value == null && fallback != null) {
            return fallback;
        }
        if (!(value instanceof Integer || value instanceof Long)) {
            throw Problem.badRequest(Problem.BAD_REQUEST, "\"" + name + "\" must be an integer number of milliseconds");
        }
        long ms = ((Number) value).longValue();
        if (ms < min || ms > max) {
            throw Problem.badRequest(Problem.BAD_REQUEST,
                    "\"" + name + "\" must be from " + min + " to " + max + " ms, was " + ms);
        }
        return ms;
    }
}
