package io.fencegate.gateway.metrics;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/** Metrics off: every call does nothing and {@link #timed} hands the route its own handler back. */
final class NoopGatewayMetrics implements GatewayMetrics {
    static final NoopGatewayMetrics INSTANCE = new NoopGatewayMetrics();

    private NoopGatewayMetrics() {}

    @Override public void write(String store, WriteOutcome outcome) {}

    @Override public void fencedRead(String store, ReadOutcome outcome) {}

    @Override public void leaseGranted() {}

    @Override public void leaseDenied() {}

    @Override
    public Handler<RoutingContext> timed(String route, Handler<RoutingContext> handler) {
        return handler;
    }

    @Override
    public boolean enabled() {
        return false;
    }

    @Override
    public String scrape() {
        return "";
    }
}
