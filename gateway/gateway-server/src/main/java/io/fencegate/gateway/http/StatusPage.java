package io.fencegate.gateway.http;

import io.fencegate.gateway.auth.ApiKeyAuthHandler;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeasePage;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /ui}: one static page (HTML, CSS and script in one resource, no build step), and
 * {@code GET /ui/events}: the server-sent events it draws from, one {@code status} event a second.
 *
 * <p>What a caller sees depends on its key, by the rules of {@code /v1/*}: without auth configured
 * (loopback only) everything; with auth, no key shows health only (what {@code /health} shows
 * anyone), and a key shows the live leases it could list on {@code /v1/leases}, the refusals of
 * items it may use ({@link Principal#mayUseItem}, the item routes' rule) and the counts of the
 * stores it may use whole ({@link StoreActivity#counts}). The page sends the key in the
 * Authorization header of a streamed fetch, never in the URL (where logs would keep it).
 */
final class StatusPage {
    static final long PERIOD_MS = 1000;
    static final int LEASES_SHOWN = 50;

    private final LeaseIssuer issuer;
    private final StoreActivity activity;
    private final OpsRoutes ops;
    private final ApiKeyAuthHandler auth;
    private final Duration timeout;
    private final Buffer page;
    /** Status streams per key, and the keyless callers' own bucket ({@code KeyShares}). */
    private final TenantShares shares;

    StatusPage(LeaseIssuer issuer, StoreActivity activity, OpsRoutes ops, ApiKeyAuthHandler auth, Duration timeout,
            TenantShares shares) {
        this.shares = shares;
        this.issuer = issuer;
        this.activity = activity;
        this.ops = ops;
        this.auth = auth;
        this.timeout = timeout;
        this.page = ClasspathResource.load("/ui/status.html");
    }

    void page(RoutingContext ctx) {
        ctx.response().putHeader("Content-Type", "text/html; charset=utf-8")
                .putHeader("Cache-Control", "no-cache")
                // The page loads nothing from elsewhere: its own inline script and style only.
                .putHeader("Content-Security-Policy",
                        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
                .end(page);
    }

    void events(RoutingContext ctx) {
        Optional<Principal> principal = auth.optional(ctx);
        if (principal == null) {
            return; // an unknown key: 401 sent
        }
        String bucket = shares.statusBucket(principal);
        Problem refused = shares.startStatusStream(bucket);
        if (refused != null) {
            ctx.fail(refused);
            return;
        }
        HttpServerResponse response = ctx.response().setChunked(true)
                .putHeader("Content-Type", "text/event-stream; charset=utf-8")
                .putHeader("Cache-Control", "no-cache")
                .putHeader("X-Accel-Buffering", "no");
        boolean[] done = {false};
        long timer = ctx.vertx().setPeriodic(0, PERIOD_MS, id -> {
            if (!done[0] && !response.writeQueueFull()) {
                snapshot(ctx, principal).onSuccess(status -> {
                    if (!done[0]) {
                        response.write("event: status\ndata: " + status.encode() + "\n\n");
                    }
                });
            }
        });
        response.closeHandler(v -> {
            if (!done[0]) {
                done[0] = true;
                shares.endStatusStream(bucket);
                ctx.vertx().cancelTimer(timer);
            }
        });
    }

    /** One status: health for everyone; leases, stores and refusals only for a key (or no auth), each scoped by it. */
    private Future<JsonObject> snapshot(RoutingContext ctx, Optional<Principal> principal) {
        Future<JsonObject> health = ops.check(ctx.vertx().getOrCreateContext());
        if (principal.isEmpty()) {
            return health.map(h -> new JsonObject().put("scope", "health").put("auth", true)
                    .put("now", System.currentTimeMillis()).put("health", h));
        }
        Principal p = principal.get();
        Optional<String> prefix = p.listablePrefix("");
        Future<JsonArray> leases = prefix.isEmpty() ? Future.succeededFuture(new JsonArray())
                : Future.fromCompletionStage(issuer.list(prefix.get(), null, LEASES_SHOWN), ctx.vertx().getOrCreateContext())
                        .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .map(page -> leases(page, p))
                        .otherwise(e -> null);
        return Future.join(health, leases).transform(done -> Future.succeededFuture(new JsonObject()
                .put("scope", "full").put("auth", auth.enabled()).put("key", p.name()).put("now", System.currentTimeMillis())
                .put("health", health.result())
                .put("leases", leases.result())
                .put("stores", activity.counts(p))
                .put("refusals", activity.refusals(p))));
    }

    private static JsonArray leases(LeasePage page, Principal viewer) {
        JsonArray out = new JsonArray();
        page.leases().stream()
                .filter(l -> viewer.mayUseLock(l.lock())) // as GET /v1/leases: the prefix already scoped it
                .forEach(l -> out.add(new JsonObject().put("lock", l.lock()).put("token", l.token())
                        .put("expiresAt", l.expiresAt()).put("grantedBy", l.grantedBy()).put("mode", l.mode().wireName())));
        return out;
    }
}
