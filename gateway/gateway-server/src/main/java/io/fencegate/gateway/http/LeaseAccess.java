package io.fencegate.gateway.http;

import io.fencegate.gateway.auth.ApiKeyAuthHandler;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Whether the calling key may touch the lease an id names: the lease's lock must be under one of
 * the key's lock prefixes, on renew, release and watch alike, as on acquire. Asked before any work
 * on the lease. A lease id is opaque to clients, but every shipped issuer can read the lock from
 * it ({@link LeaseIssuer#lockOf}) with no round trip, and binds the id's secret to that lock, so an
 * id edited to name an allowed lock names no lease. An issuer that cannot tell is asked with one
 * read of the lease ({@link LeaseIssuer#find}).
 */
record LeaseAccess(LeaseIssuer issuer, Duration timeout) {

    /**
     * Completes with true when the caller may go on with {@code leaseId}; with false once it has
     * answered (403 for a lock outside the key's prefixes, 410 for an id that names no lease).
     */
    Future<Boolean> permit(RoutingContext ctx, String leaseId) {
        Optional<String> lock = issuer.lockOf(leaseId);
        if (lock.isPresent()) {
            return Future.succeededFuture(allowed(ctx, lock.get()));
        }
        return Future.fromCompletionStage(issuer.find(leaseId), ctx.vertx().getOrCreateContext())
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .map(found -> {
                    if (found.isEmpty()) {
                        gone(ctx);
                        return false;
                    }
                    return allowed(ctx, found.map(Lease::lock).get());
                });
    }

    /** True if the key may use {@code lock}; otherwise answers 403 and is false. */
    static boolean allowed(RoutingContext ctx, String lock) {
        if (Principal.of(ctx).mayUseLock(lock)) {
            return true;
        }
        forbidden(lock).send(ctx);
        return false;
    }

    static Problem forbidden(String lock) {
        return new Problem(403, ApiKeyAuthHandler.FORBIDDEN, "Forbidden",
                "this API key may not use lock '" + PathDecoder.shorten(lock) + "'");
    }

    static void gone(RoutingContext ctx) {
        new Problem(410, Problem.LEASE_GONE, "Gone", "the lease has ended (expired, released or never granted)")
                .send(ctx);
    }
}
