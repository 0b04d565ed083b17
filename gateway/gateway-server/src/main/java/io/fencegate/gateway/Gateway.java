package io.fencegate.gateway;

import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;

/**
 * The fencegate HTTP gateway: leases from one issuer, token-guarded items in named stores
 * (DESIGN.md, "The gateway HTTP API"). The caller owns the issuer and the stores and closes them
 * after {@link #close()}.
 */
public final class Gateway {

    private Gateway() {}

    /** Validates {@code options} and starts serving; fails if the port cannot be bound. */
    public static Future<Gateway> start(Vertx vertx, GatewayOptions options, LeaseIssuer issuer,
            List<StoreBinding> stores, GatewayMetrics metrics) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The port actually bound. */
    public int port() {
        throw new UnsupportedOperationException("in progress");
    }

    /** Stops accepting connections, lets requests in flight finish (up to the drain timeout). */
    public Future<Void> close() {
        throw new UnsupportedOperationException("in progress");
    }
}
