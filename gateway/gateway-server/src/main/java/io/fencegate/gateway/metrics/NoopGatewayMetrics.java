package io.fencegate.gateway.metrics;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/** Metrics off: every call does nothing and {@link #timed} hands the route its own handler back. */
final class NoopGatewayMetrics implements GatewayMetrics {
    static final NoopGatewayMetrics INSTANCE = new NoopGatewayMetrics();

    private NoopGatewayMetrics() {}

    @Override public void writeApplied(String store) {}

    @Override public void writeStale(String store) {}

    @Override public void writeRefused(String store) {}

    @Override public void fencedReadClaimed(String store) {}

    @Override public void fencedReadStale(String store) {}

    @Override public void fencedReadRefused(String store) {}

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
