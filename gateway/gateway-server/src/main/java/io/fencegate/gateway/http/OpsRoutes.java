package io.fencegate.gateway.http;

import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** {@code GET /health}, {@code GET /metrics}, {@code GET /openapi.yaml}: no auth, no state changed. */
final class OpsRoutes {
    /** Plain reads of this key and grant look-ups of this lock change nothing anywhere. */
    private static final String PROBE_KEY = "fencegate-health-probe";
    private static final String PROBE_LOCK = "fencegate/health-probe";

    private final LeaseIssuer issuer;
    private final List<StoreBinding> stores;
    private final GatewayMetrics metrics;
    private final Duration probeTimeout;
    private final Buffer openApi;
    /** The check in progress, shared by every caller that asks while it runs. */
    private final AtomicReference<Future<JsonObject>> running = new AtomicReference<>();

    OpsRoutes(LeaseIssuer issuer, List<StoreBinding> stores, GatewayMetrics metrics, Duration probeTimeout) {
        this.issuer = issuer;
        this.stores = stores;
        this.metrics = metrics;
        this.probeTimeout = probeTimeout;
        this.openApi = ClasspathResource.load("/openapi.yaml");
    }

    /**
     * 200 when the issuer and every store answer a read in time and the issuer refuses no grant to
     * stay safe, else 503; the body says which, as
     * {@code {"status":"DOWN"}} only: this route needs no key, so why (addresses, driver messages)
     * goes to the log. The probes are real round trips (a plain read, a grant look-up), so a cut
     * link shows here.
     */
    void health(RoutingContext ctx) {
        Context own = ctx.vertx().getOrCreateContext();
        check(own).onComplete(done -> own.runOnContext(v -> {
            JsonObject body = done.result();
            boolean up = "UP".equals(body.getString("status"));
            ctx.response().setStatusCode(up ? 200 : 503).putHeader("Content-Type", "application/json")
                    .end(body.encode());
        }));
    }

    /**
     * The health body, {@code {"status":"UP"|"DOWN","checks":{…}}}; never fails. Also the status page's.
     * Callers that ask while a check runs share it, so however many ask at once (a flood of
     * {@code /health}, which counts against no share), each backend sees at most one probe at a time.
     */
    Future<JsonObject> check(Context context) {
        while (true) {
            Future<JsonObject> current = running.get();
            if (current != null && !current.isComplete()) {
                return current;
            }
            // Set before it starts: a check may complete at once, and a completed one is never shared.
            Promise<JsonObject> started = Promise.promise();
            if (running.compareAndSet(current, started.future())) {
                checkNow(context).onComplete(started);
                return started.future();
            }
        }
    }

    private Future<JsonObject> checkNow(Context context) {
        JsonObject checks = new JsonObject();
        List<Future<?>> probes = new ArrayList<>();
        // An issuer that refuses grants to stay safe (LeaseIssuer.failingClosed) is down for them,
        // though it answers: the probe fails with its reason, which goes to the log.
        Optional<String> failingClosed = issuer.failingClosed();
        probes.add(probe(context, checks, "issuer", "issuer", failingClosed.isPresent()
                ? CompletableFuture.failedFuture(new IssuerUnavailableException(failingClosed.get()))
                : issuer.wasGranted(PROBE_LOCK, 1)));
        for (StoreBinding b : stores) {
            probes.add(probe(context, checks, "store:" + b.name(), "store '" + b.name() + "'", b.store().read(PROBE_KEY)));
        }
        return Future.join(probes).transform(done -> {
            boolean up = checks.stream().allMatch(e -> "UP".equals(((JsonObject) e.getValue()).getString("status")));
            return Future.succeededFuture(new JsonObject().put("status", up ? "UP" : "DOWN").put("checks", checks));
        });
    }

    private Future<?> probe(Context context, JsonObject checks, String name, String backend, CompletionStage<?> stage) {
        return Future.fromCompletionStage(stage, context)
                .timeout(probeTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .onSuccess(v -> checks.put(name, new JsonObject().put("status", "UP")))
                .onFailure(t -> {
                    Failures.OUTAGES.failed(backend, t);
                    checks.put(name, new JsonObject().put("status", "DOWN"));
                });
    }

    void metrics(RoutingContext ctx) {
        ctx.response().putHeader("Content-Type", metrics.contentType()).end(metrics.scrape());
    }

    void openApi(RoutingContext ctx) {
        ctx.response().putHeader("Content-Type", "application/yaml").end(openApi);
    }
}
