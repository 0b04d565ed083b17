package io.fencegate.gateway.http;

import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseGroup;
import io.fencegate.issuer.LeaseGroupIds;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.MultiLock;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Lease groups: {@code POST /v1/leases} with {@code "locks"} takes every lock or none
 * ({@link MultiLock}); the group's id, which carries its members' lease ids
 * ({@link LeaseGroupIds}), is renewed, released and watched on the lease routes, so any gateway on
 * the backend serves it with no group state. Every member counts in the key's lease share, and the
 * key must be allowed every lock, checked before any work.
 */
record GroupLeaseRoutes(LeaseIssuer issuer, MultiLock multi, GatewayMetrics metrics, Duration timeout,
                        int maxLockBytes, Function<String, Duration> lockDelays, TenantShares shares) {

    GroupLeaseRoutes(LeaseIssuer issuer, GatewayMetrics metrics, Duration timeout, int maxLockBytes,
            Function<String, Duration> lockDelays, TenantShares shares) {
        this(issuer, new MultiLock(issuer), metrics, timeout, maxLockBytes, lockDelays, shares);
    }

    /**
     * The {@code "locks"} of a group acquire, checked: 1 to {@link MultiLock#MAX_LOCKS} distinct
     * non-empty strings, each a lock the issuer takes, all together at most {@code maxLockBytes}
     * UTF-8 bytes. Why the sum: the group id carries every member's lease id (each a few dozen bytes
     * plus its lock), and must fit in a request line for renew, release and watch; a group whose
     * names together fit the one-lock limit has an id no longer than the request line allows.
     */
    List<String> locks(Object value) {
        if (!(value instanceof JsonArray array) || array.isEmpty() || array.size() > MultiLock.MAX_LOCKS) {
            throw Problem.badRequest(Problem.BAD_REQUEST,
                    "\"locks\" must be an array of 1 to " + MultiLock.MAX_LOCKS + " lock names");
        }
        List<String> locks = new ArrayList<>(array.size());
        HashSet<String> seen = new HashSet<>();
        long bytes = 0;
        for (Object item : array) {
            if (!(item instanceof String lock) || lock.isEmpty() || lock.indexOf('\0') >= 0) {
                throw Problem.badRequest(Problem.BAD_REQUEST, "each of \"locks\" must be a non-empty string without NUL");
            }
            if (!seen.add(lock)) {
                throw Problem.badRequest(Problem.BAD_REQUEST,
                        "\"locks\" names '" + PathDecoder.shorten(lock) + "' twice");
            }
            bytes += lock.getBytes(StandardCharsets.UTF_8).length;
            locks.add(lock);
        }
        if (bytes > maxLockBytes) {
            throw Problem.badRequest(Problem.BAD_REQUEST,
                    "\"locks\" must be at most " + maxLockBytes + " UTF-8 bytes together, were " + bytes);
        }
        try {
            MultiLock.canonicalOrder(locks); // the issuer's rule for each name (valid Unicode)
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(Problem.BAD_REQUEST, e.getMessage());
        }
        return locks;
    }

    /**
     * Acquires the checked, authorized {@code locks}; the key's shares were taken ({@code count}
     * leases, and a waiter if {@code waits}) and are given back here.
     */
    void acquire(RoutingContext ctx, List<String> locks, long ttlMs, long waitMs, String bucket, boolean waits) {
        // n acquires in sequence, each bounded by the request timeout, within one overall wait.
        Duration bound = timeout.multipliedBy(locks.size()).plusMillis(waitMs);
        call(ctx, multi.acquire(locks, Duration.ofMillis(ttlMs), Duration.ofMillis(waitMs), lockDelays), bound)
                .onComplete(done -> {
                    if (waits) {
                        shares.endWait(bucket);
                    }
                    shares.leases().answered(bucket, locks.size(), done.succeeded() && done.result().isPresent()
                            ? done.result().get().leases() : List.of());
                })
                .onSuccess(granted -> {
                    if (granted.isEmpty()) {
                        metrics.leaseDenied();
                        new Problem(423, Problem.LOCK_HELD, "Locked", "a lock of the group was still held after waiting "
                                + waitMs + " ms; none of them is held").send(ctx);
                        return;
                    }
                    LeaseGroup group = granted.get();
                    group.leases().forEach(l -> metrics.leaseGranted());
                    ctx.response().setStatusCode(201).putHeader("Content-Type", "application/json")
                            .end(json(group).encode());
                })
                .onFailure(ctx::fail);
    }

    void renew(RoutingContext ctx, String groupId) {
        permitted(ctx, groupId, () -> call(ctx, multi.renew(groupId), timeout)
                .onSuccess(renewed -> {
                    if (renewed.isEmpty()) {
                        // The group is lost whole: its survivors were released by the renew.
                        endedAll(groupId);
                        LeaseAccess.gone(ctx);
                        return;
                    }
                    renewed.get().leases().forEach(l -> shares.leases().renewed(l.leaseId(), l.expiresAt()));
                    ctx.response().putHeader("Content-Type", "application/json")
                            .end(json(renewed.get()).encode());
                })
                .onFailure(ctx::fail));
    }

    void release(RoutingContext ctx, String groupId) {
        permitted(ctx, groupId, () -> call(ctx, multi.release(groupId), timeout)
                .onSuccess(released -> {
                    endedAll(groupId);
                    if (released) {
                        ctx.response().setStatusCode(204).end();
                    } else {
                        LeaseAccess.gone(ctx);
                    }
                })
                .onFailure(ctx::fail));
    }

    /**
     * Runs {@code then} once the key is known to be allowed every lock of the group: read from the
     * member ids ({@link MultiLock#locksOf}), or, for an issuer whose ids do not carry the lock,
     * from the live group. A group id that names no group answers 410.
     */
    private void permitted(RoutingContext ctx, String groupId, Runnable then) {
        locks(ctx, groupId).onSuccess(locks -> {
            if (locks.isEmpty()) {
                LeaseAccess.gone(ctx);
            } else if (allowed(ctx, locks.get())) {
                then.run();
            }
        }).onFailure(ctx::fail);
    }

    /** The group's locks, or empty if the id names no live group. */
    Future<Optional<List<String>>> locks(RoutingContext ctx, String groupId) {
        Optional<List<String>> named = multi.locksOf(groupId);
        if (named.isPresent() || LeaseGroupIds.parse(groupId).isEmpty()) {
            return Future.succeededFuture(named);
        }
        return call(ctx, multi.find(groupId), timeout).map(found -> found.map(LeaseGroup::locks));
    }

    /** True if the key may use every lock; otherwise answers 403 naming the first it may not. */
    static boolean allowed(RoutingContext ctx, List<String> locks) {
        for (String lock : locks) {
            if (!LeaseAccess.allowed(ctx, lock)) {
                return false;
            }
        }
        return true;
    }

    private void endedAll(String groupId) {
        LeaseGroupIds.parse(groupId).ifPresent(ids -> ids.forEach(id -> shares.leases().ended(id)));
    }

    /** A group as the API answers it: its id, its (earliest) expiry, and each member. */
    static JsonObject json(LeaseGroup group) {
        JsonArray leases = new JsonArray();
        for (Lease lease : group.leases()) {
            leases.add(new JsonObject().put("lock", lease.lock()).put("leaseId", lease.leaseId())
                    .put("token", lease.token()).put("expiresAt", lease.expiresAt()));
        }
        return new JsonObject().put("groupId", group.id()).put("expiresAt", group.expiresAt()).put("leases", leases);
    }

    private static <T> Future<T> call(RoutingContext ctx, CompletionStage<T> stage, Duration bound) {
        return Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext())
                .timeout(bound.toMillis(), TimeUnit.MILLISECONDS);
    }
}
