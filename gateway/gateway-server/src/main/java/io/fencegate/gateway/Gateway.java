package io.fencegate.gateway;

import io.fencegate.gateway.http.GatewayRouter;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The fencegate HTTP gateway: leases from one issuer, token-guarded items in named stores
 * (DESIGN.md, "The gateway HTTP API"). The caller owns the issuer and the stores and closes them
 * after {@link #close()}.
 */
public final class Gateway {
    private final HttpServer server;
    private final GatewayOptions options;

    private Gateway(HttpServer server, GatewayOptions options) {
        this.server = server;
        this.options = options;
    }

    /** Validates {@code options} and starts serving; fails if the port cannot be bound. */
    public static Future<Gateway> start(Vertx vertx, GatewayOptions options, LeaseIssuer issuer,
            List<StoreBinding> stores, GatewayMetrics metrics) {
        try {
            options.validate();
            HttpServerOptions http = new HttpServerOptions()
                    .setHost(options.host())
                    .setPort(options.port())
                    // A client that stops sending mid-request does not hold a connection forever.
                    .setIdleTimeout((int) Math.max(1, options.requestTimeout().toSeconds() * 2))
                    .setIdleTimeoutUnit(TimeUnit.SECONDS);
            if (options.tls() != null) {
                http.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
                        .setCertPath(options.tls().certPath()).setKeyPath(options.tls().keyPath()));
            }
            return vertx.createHttpServer(http)
                    .requestHandler(GatewayRouter.create(vertx, options, issuer, stores, metrics))
                    .listen()
                    .map(server -> new Gateway(server, options));
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    /** The port actually bound. */
    public int port() {
        return server.actualPort();
    }

    /** Stops accepting connections, lets requests in flight finish (up to the drain timeout). */
    public Future<Void> close() {
        return server.shutdown(options.drainTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }
}
