package io.fencegate.gateway.metrics;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;

/**
 * What the gateway counts. Routes report each write's and fenced read's {@link Outcome} once per
 * request; {@link #timed} wraps a route handler to time it. With metrics off, {@link #noop()} makes every call free (the JIT drops
 * them), so routes never test a flag.
 *
 * <p>Prometheus names: {@code fencegate_writes_total{store,outcome=applied|stale|retried|refused}},
 * {@code fencegate_fenced_reads_total{store,outcome=claimed|stale|refused}},
 * {@code fencegate_leases_total{outcome=granted|denied}}, {@code fencegate_issuer_fail_closed},
 * {@code fencegate_http_requests_seconds{route,method,status}} (count, sum, max, p50/p95/p99).
 */
public interface GatewayMetrics {

    /** How a guarded operation ended; its label (Prometheus, status page) is its name in lower case. */
    interface Outcome {
        String name();

        int ordinal();

        default String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How a PUT, DELETE or statement ended. */
    enum WriteOutcome implements Outcome {
        /** Passed the guard. */
        APPLIED,
        /** Refused by the guard (409): a higher token wrote or claimed the item. */
        STALE,
        /** Refused before the guard: 400, 403, 413, 428 (not 404: an unknown store is no store). */
        REFUSED,
        /**
         * Refused by the guard (409) because this very token already wrote the item: under
         * {@code strict}, a retry of an applied write (or a second write of one lease). Nothing
         * stale was kept out, so it is not counted as {@link #STALE}.
         */
        RETRIED
    }

    /** How a fenced read ended. */
    enum ReadOutcome implements Outcome {
        /** Raised (or held) the item's fence. */
        CLAIMED,
        /** Refused by the guard (409): a higher token got there first. */
        STALE,
        /** Refused before the guard (400, 403). */
        REFUSED
    }

    /** A PUT, DELETE or statement on {@code store} ended so. */
    void write(String store, WriteOutcome outcome);

    /**
     * A write refused by the guard, with what was refused: the item's key and the guard's answer
     * (the attempted token, the item's current token and fence), for the status page's list of
     * refusals.
     */
    default void writeStale(String store, String key, io.fencegate.store.Stale stale) {
        write(store, outcomeOf(stale));
    }

    /** {@link WriteOutcome#RETRIED} for a 409 whose current token is the attempted one, else {@link WriteOutcome#STALE}. */
    static WriteOutcome outcomeOf(io.fencegate.store.Stale stale) {
        return stale.alreadyApplied() ? WriteOutcome.RETRIED : WriteOutcome.STALE;
    }

    /** A fenced read on {@code store} ended so. */
    void fencedRead(String store, ReadOutcome outcome);

    /** {@code POST /v1/leases} answered 201. */
    void leaseGranted();

    /** {@code POST /v1/leases} answered 423: still held after waiting. */
    void leaseDenied();

    /**
     * Reports, as the gauge {@code fencegate_issuer_fail_closed} (1 or 0), whether the issuer now
     * refuses grants to stay safe ({@code LeaseIssuer.failingClosed()}): worth an alert, it means
     * some locks cannot be granted until it clears by itself.
     */
    default void watchIssuer(java.util.function.BooleanSupplier failingClosed) {
    }

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
