package io.fencegate.gateway.http;

import io.fencegate.gateway.GatewayLimits;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKeyAuthHandler;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every route of the contract (DESIGN.md, "The gateway HTTP API"), on one Vert.x Web router. */
public final class GatewayRouter {
    private static final long MAX_LEASE_BODY = 64 * 1024;
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    private GatewayRouter() {}

    /**
     * The request handler: the router, behind a check that the raw path's percent-escapes are
     * well-formed (the router would answer a bare 500 for {@code %zz}).
     */
    public static Handler<HttpServerRequest> create(Vertx vertx, GatewayOptions options, LeaseIssuer issuer,
            List<StoreBinding> stores, GatewayMetrics metrics) {
        Router router = router(vertx, options, issuer, stores, metrics);
        return request -> {
            if (!wellFormedEscapes(request.path())) {
                request.response().setStatusCode(400).putHeader("Content-Type", "application/problem+json")
                        .putHeader("Connection", "close")
                        .end(Problem.badRequest(Problem.BAD_REQUEST, "malformed percent-encoding in the path").body().encode());
                return;
            }
            router.handle(request);
        };
    }

    private static boolean wellFormedEscapes(String path) {
        if (path == null) {
            return false;
        }
        for (int i = path.indexOf('%'); i >= 0; i = path.indexOf('%', i + 1)) {
            if (i + 2 >= path.length() || Character.digit(path.charAt(i + 1), 16) < 0
                    || Character.digit(path.charAt(i + 2), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    private static Router router(Vertx vertx, GatewayOptions options, LeaseIssuer issuer, List<StoreBinding> stores,
            GatewayMetrics prometheus) {
        // The routes report outcomes once; the status page and Prometheus both hear them.
        StoreActivity activity = new StoreActivity(prometheus, stores);
        GatewayMetrics metrics = activity;
        Map<String, StoreBinding> byName = new LinkedHashMap<>();
        for (StoreBinding b : stores) {
            if (byName.put(b.name(), b) != null) {
                throw new IllegalArgumentException("stores." + b.name() + " is configured twice");
            }
        }
        TokenGate gate = new TokenGate(new GrantCheck(issuer, options.requestTimeout()));
        TenantShares shares = new TenantShares(options.keyShares(), options.limits(), options.auth().enabled());
        InFlightRequests inFlight = new InFlightRequests(shares);
        LeaseRoutes leases = new LeaseRoutes(issuer, metrics, options.maxTtl(), options.maxWait(), options.requestTimeout(),
                LeaseRoutes.maxLockBytes(options.maxKeyBytes(), stores), options::lockDelayFor, shares);
        LeaseEvents events = new LeaseEvents(issuer, options.requestTimeout(), shares);
        GatewayLimits limits = options.limits();
        // Shares are between API keys: without auth (loopback) there is one caller, and it has the whole budget.
        boolean keys = options.auth().enabled();
        Bodies bodies = new Bodies(
                new BodyBudget(limits.bodyBudgetBytes(),
                        keys ? limits.bodyBudgetPerKeyBytesFor(options.maxBodyBytes()) : Long.MAX_VALUE),
                limits.bodyIdleTimeout(), limits.bodyTimeout(), options.requestTimeout());
        BodyBudget tempDisk = new BodyBudget(limits.tempDiskBytes(),
                keys ? limits.tempDiskPerKeyBytesFor(options.maxBodyBytes()) : Long.MAX_VALUE);
        ItemRoutes items = new ItemRoutes(gate, metrics, bodies, tempDisk, options.maxKeyBytes(), options.maxBodyBytes(),
                options.requestTimeout());
        StatementRoutes statements = new StatementRoutes(gate, metrics, bodies, options.maxKeyBytes(), options.requestTimeout());
        TransactionRoutes transactions = new TransactionRoutes(gate, metrics, bodies, options.maxKeyBytes(),
                limits.maxTransactionItems(), limits.maxTransactionBytesFor(options.maxBodyBytes()), options.requestTimeout());
        WriteBatchRoutes batches = new WriteBatchRoutes(gate, shares, metrics, bodies, options.maxKeyBytes(),
                options.maxBodyBytes(), limits.maxBatchWrites(), limits.maxBatchBytesFor(options.maxBodyBytes()),
                options.requestTimeout());
        OpsRoutes ops = new OpsRoutes(issuer, stores, metrics, PROBE_TIMEOUT);
        prometheus.watchIssuer(() -> issuer.failingClosed().isPresent());

        Router router = Router.router(vertx);
        router.route().handler(inFlight::keyless);
        router.get("/health").handler(metrics.timed("/health", ops::health));
        if (metrics.enabled()) {
            router.get("/metrics").handler(ops::metrics);
        }
        router.get("/openapi.yaml").handler(ops::openApi);

        ApiKeyAuthHandler auth = ApiKeyAuthHandler.create(options.auth());
        if (options.ui()) {
            StatusPage ui = new StatusPage(issuer, activity, ops, auth, options.requestTimeout(), shares);
            router.get("/ui").handler(ui::page);
            router.get("/ui/events").handler(ui::events);
        }
        router.route("/v1/*").handler(auth);
        router.route("/v1/*").handler(inFlight::keyed);
        BodyHandler leaseBody = BodyHandler.create(false).setBodyLimit(MAX_LEASE_BODY);
        router.get("/v1/leases").handler(metrics.timed("/v1/leases", leases::list));
        router.post("/v1/leases").handler(leaseBody).handler(metrics.timed("/v1/leases", leases::acquire));
        router.post("/v1/leases/:leaseId/renew").handler(metrics.timed("/v1/leases/{leaseId}/renew", leases::renew));
        // Not timed: a stream lasts as long as the lease, which would swamp the latency histogram.
        router.get("/v1/leases/:leaseId/events").handler(events::watch);
        router.delete("/v1/leases/:leaseId").handler(metrics.timed("/v1/leases/{leaseId}", leases::release));
        router.route(StoreTarget.PREFIX + "*").handler(ctx -> dispatch(ctx, byName, items, statements, transactions, batches, metrics));

        router.route().failureHandler(Failures::handle);
        for (int status : new int[] {400, 404, 405, 413, 500}) {
            router.errorHandler(status, Failures::handle);
        }
        return router;
    }

    /**
     * Store routes parse the raw path themselves: a key may hold '/', and the router's normalised
     * path would have resolved the {@code ..} segments that must be refused.
     */
    private static void dispatch(RoutingContext ctx, Map<String, StoreBinding> stores, ItemRoutes items,
            StatementRoutes statements, TransactionRoutes transactions, WriteBatchRoutes batches, GatewayMetrics metrics) {
        HttpMethod method = ctx.request().method();
        if (method == HttpMethod.PUT || method == HttpMethod.POST) {
            ctx.request().pause(); // the body is read after the cheaper checks answered
        }
        StoreTarget target;
        try {
            target = StoreTarget.parse(ctx.request().path(), stores, Principal.of(ctx));
            ctx.put(Failures.STORE, target.binding().name());
            TokenGate.permitStore(ctx, target.binding());
        } catch (Problem p) {
            ctx.fail(p);
            return;
        }
        String route = switch (target.kind()) {
            case ITEM -> "/v1/stores/{store}/items/{key}";
            case STATEMENT -> "/v1/stores/{store}/statements/{name}";
            case TRANSACTIONS -> "/v1/stores/{store}/transactions";
            case FENCED_READS -> "/v1/stores/{store}/fenced-reads";
            case WRITES -> "/v1/stores/{store}/writes";
        };
        Handler<RoutingContext> handler = switch (target.kind()) {
            case ITEM -> method == HttpMethod.PUT ? c -> items.put(c, target)
                    : method == HttpMethod.GET ? c -> items.get(c, target)
                    : method == HttpMethod.DELETE ? c -> items.delete(c, target)
                    : GatewayRouter::notAllowed;
            case STATEMENT -> method == HttpMethod.POST ? c -> statements.post(c, target) : GatewayRouter::notAllowed;
            case TRANSACTIONS -> method == HttpMethod.POST ? c -> transactions.transact(c, target) : GatewayRouter::notAllowed;
            case FENCED_READS -> method == HttpMethod.POST ? c -> transactions.fencedReads(c, target) : GatewayRouter::notAllowed;
            case WRITES -> method == HttpMethod.POST ? c -> batches.post(c, target) : GatewayRouter::notAllowed;
        };
        metrics.timed(route, handler).handle(ctx);
    }

    private static void notAllowed(RoutingContext ctx) {
        ctx.fail(new Problem(405, Problem.METHOD_NOT_ALLOWED, "Method Not Allowed",
                ctx.request().method() + " is not allowed here"));
    }
}
