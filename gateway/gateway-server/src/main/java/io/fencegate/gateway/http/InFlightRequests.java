package io.fencegate.gateway.http;

import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Each caller's requests in flight, against its share ({@code limits.perKey.requests},
 * {@code keylessRequests}): taken before any work, given back when the answer ends or the connection
 * closes. A key's requests count after authentication ({@link #keyed}); a caller without a key's
 * ({@code /metrics}, {@code /ui}, ...) before routing ({@link #keyless}). {@code /health} counts for
 * no one: an orchestrator's probe answered 429 because others without a key are in flight would
 * restart a healthy gateway; its cost is bounded instead by sharing one check among the concurrent
 * callers ({@link OpsRoutes#check}). Streams
 * (lease watches, the status page's events) have shares of their own and are not counted here: they
 * last as long as their lease or page.
 */
final class InFlightRequests {
    private final TenantShares shares;

    InFlightRequests(TenantShares shares) {
        this.shares = shares;
    }

    /** On every route: a request outside {@code /v1/} counts for callers without a key. */
    void keyless(RoutingContext ctx) {
        String path = ctx.normalizedPath();
        if (path.startsWith("/v1/") || path.equals("/ui/events") || path.equals("/health")) {
            ctx.next();
            return;
        }
        take(ctx, shares.statusBucket(java.util.Optional.empty()));
    }

    /** On {@code /v1/*}, after authentication: the request counts for its key. */
    void keyed(RoutingContext ctx) {
        String path = ctx.normalizedPath();
        if (path.startsWith("/v1/leases/") && path.endsWith("/events")) {
            ctx.next();
            return;
        }
        take(ctx, shares.bucket(ctx));
    }

    private void take(RoutingContext ctx, String bucket) {
        Problem refused = shares.startRequest(bucket);
        if (refused != null) {
            ctx.fail(refused);
            return;
        }
        AtomicBoolean given = new AtomicBoolean();
        // Called once the answer is written, or the connection closed first.
        ctx.addEndHandler(done -> {
            if (given.compareAndSet(false, true)) {
                shares.endRequest(bucket);
            }
        });
        ctx.next();
    }
}
