package io.fencegate.gateway.metrics;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * What the gateway counts. Routes call the outcome methods once per request; {@link #timed} wraps a
 * route handler to time it. With metrics off, {@link #noop()} makes every call free (the JIT drops
 * them), so routes never test a flag.
 *
 * <p>Prometheus names: {@code fencegate_writes_total{store,outcome=applied|stale|refused}},
 * {@code fencegate_fenced_reads_total{store,outcome=claimed|stale|refused}},
 * {@code fencegate_leases_total{outcome=granted|denied}},
 * {@code fencegate_http_requests_seconds{route,method,status}} (count, sum, max, p50/p95/p99).
 */
public interface GatewayMetrics {

    /** A PUT, DELETE or statement passed the guard. */
    void writeApplied(String store);

    /** A PUT, DELETE or statement was refused by the guard (409). */
    void writeStale(String store);

    /**
     * The same, with what was refused: the item's key and the guard's answer (the attempted
     * token, the item's current token and fence), for the status page's list of refusals.
     */
    default void writeStale(String store, String key, io.fencegate.store.Stale stale) {
        writeStale(store);
    }

    /** A write was refused before the guard: 400, 403, 413, 428 (not 404: an unknown store is no store). */
    void writeRefused(String store);

    /** A fenced read raised (or held) the item's fence. */
    void fencedReadClaimed(String store);

    /** A fenced read was refused by the guard (409): a higher token got there first. */
    void fencedReadStale(String store);

    /** A fenced read was refused before the guard (400, 403). */
    void fencedReadRefused(String store);

    /** {@code POST /v1/leases} answered 201. */
    void leaseGranted();

    /** {@code POST /v1/leases} answered 423: still held after waiting. */
    void leaseDenied();

    /**
     * Wraps a route handler so its latency is recorded under {@code route} (the route's pattern, e.g.
     * {@code "/v1/stores/{store}/items/{key}"}, never the concrete path: labels must stay few), with the
     * request method and the status it ended with.
     */
    Handler<RoutingContext> timed(String route, Handler<RoutingContext> handler);

    /** False for {@link #noop()}: the launcher then mounts no {@code /metrics} route. */
    boolean enabled();

    /** The Prometheus text exposition of every meter ("" when off). */
    String scrape();

    /** The Content-Type for {@link #scrape()}'s body. */
    default String contentType() {
        return "text/plain; version=0.0.4; charset=utf-8";
    }

    /** Micrometer on a fresh Prometheus registry, with JVM and process meters. */
    static GatewayMetrics prometheus() {
        return new PrometheusGatewayMetrics();
    }

    /** Metrics off. */
    static GatewayMetrics noop() {
        return NoopGatewayMetrics.INSTANCE;
    }
}
