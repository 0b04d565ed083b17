package io.fencegate.gateway.metrics;

import io.fencegate.issuer.LeaseIssuer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.binder.jvm.JvmCompilationMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
// Micrometer 1.13+ moved the registry to io.micrometer.prometheusmetrics (Prometheus client 1.x);
// the old io.micrometer.prometheus package is the deprecated simpleclient flavour.
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.fencegate.gateway.GatewayLimits;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer on a Prometheus registry. Meters are cached per label set so the hot path is a map
 * lookup and an add, not a registry lookup that builds tag lists.
 */
final class PrometheusGatewayMetrics implements GatewayMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final StoreOutcomes writes = new StoreOutcomes("fencegate.writes",
            "Guarded writes (PUT, DELETE, statements) by store and outcome");
    private final StoreOutcomes reads = new StoreOutcomes("fencegate.fenced.reads", "Fenced reads by store and outcome");
    private final Map<RequestKey, Timer> timers = new ConcurrentHashMap<>();
    private final Counter leasesGranted;
    private final Counter leasesDenied;

    private record RequestKey(String route, String method, int status) {}

    /** One counter per store and outcome of a meter, built on first use: no series for what never happened. */
    private final class StoreOutcomes {
        private final String name;
        private final String description;
        private final Map<String, Map<Outcome, Counter>> byStore = new ConcurrentHashMap<>();

        StoreOutcomes(String name, String description) {
            this.name = name;
            this.description = description;
        }

        void increment(String store, Outcome outcome) {
            byStore.computeIfAbsent(store, s -> new ConcurrentHashMap<>())
                    .computeIfAbsent(outcome, o -> Counter.builder(name).description(description)
                            .tag("store", store).tag("outcome", o.label()).register(registry))
                    .increment();
        }
    }

    /** The methods a request's timer is labelled with; any other is {@code other}. */
    private static final java.util.Set<String> KNOWN_METHODS =
            java.util.Set.of("GET", "PUT", "POST", "DELETE", "HEAD", "OPTIONS", "PATCH");

    PrometheusGatewayMetrics() {
        // Labels come from closed sets (route patterns, known methods, the statuses the gateway
        // answers); these caps are the second line of defence, should a label ever come from a client.
        registry.config()
                .meterFilter(MeterFilter.maximumAllowableTags("fencegate.http.requests", "route", 64, MeterFilter.deny()))
                .meterFilter(MeterFilter.maximumAllowableTags("fencegate.http.requests", "method", 16, MeterFilter.deny()))
                .meterFilter(MeterFilter.maximumAllowableTags("fencegate.http.requests", "status", 64, MeterFilter.deny()))
                .meterFilter(MeterFilter.maximumAllowableTags("fencegate", "store", 256, MeterFilter.deny()))
                .meterFilter(MeterFilter.maximumAllowableMetrics(GatewayLimits.MAX_METER_SERIES));
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        // JIT time: a fresh gateway spends its first tens of seconds compiling, which shows in latency.
        new JvmCompilationMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        leasesGranted = leases("granted");
        leasesDenied = leases("denied");
        warmUp();
    }

    /**
     * A request's timer is made on the event loop when its route and status are first seen, and the
     * first one of all loads and links the percentile-histogram classes: 200-300 ms of a cold JVM
     * that would block the loop. A scratch timer built and scraped here, at start-up, pays it first.
     */
    private static void warmUp() {
        PrometheusMeterRegistry scratch = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Timer.builder("fencegate.warm.up").tag("route", "-").publishPercentiles(0.5, 0.95, 0.99).register(scratch)
                .record(1, TimeUnit.MILLISECONDS);
        scratch.scrape();
        scratch.close();
    }

    private Counter leases(String outcome) {
        return Counter.builder("fencegate.leases").description("Lease requests by outcome")
                .tag("outcome", outcome).register(registry);
    }

    @Override
    public void watchIssuer(java.util.function.BooleanSupplier failingClosed) {
        io.micrometer.core.instrument.Gauge.builder("fencegate.issuer.fail.closed", () -> failingClosed.getAsBoolean() ? 1 : 0)
                .description("1 while the issuer refuses grants to stay safe (see the gateway's log), else 0")
                .register(registry);
    }

    @Override
    public void write(String store, WriteOutcome outcome) {
        writes.increment(store, outcome);
    }

    @Override
    public void fencedRead(String store, ReadOutcome outcome) {
        reads.increment(store, outcome);
    }

    @Override public void leaseGranted() { leasesGranted.increment(); }

    @Override public void leaseDenied() { leasesDenied.increment(); }

    @Override
    public Handler<RoutingContext> timed(String route, Handler<RoutingContext> handler) {
        return ctx -> {
            long start = System.nanoTime();
            // The end handler also runs when the client goes away mid-answer, so no request escapes.
            ctx.addEndHandler(done -> recordRequest(route, methodLabel(ctx.request().method().name()),
                    ctx.response().getStatusCode(), System.nanoTime() - start));
            handler.handle(ctx);
        };
    }

    /** A method from the closed set, or {@code other}: a client may send any token as a method. */
    static String methodLabel(String method) {
        return KNOWN_METHODS.contains(method) ? method : "other";
    }

    private void recordRequest(String route, String method, int status, long nanos) {
        timers.computeIfAbsent(new RequestKey(route, method, status), k -> Timer.builder("fencegate.http.requests")
                .description("Gateway requests by route pattern, method and status")
                .tag("route", k.route()).tag("method", k.method()).tag("status", Integer.toString(k.status()))
                .publishPercentiles(0.5, 0.95, 0.99)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public String scrape() {
        return registry.scrape();
    }
}
