package io.fencegate.gateway;

import io.fencegate.gateway.http.GatewayRouter;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemKeyCertOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fencegate HTTP gateway: leases from one issuer, token-guarded items in named stores
 * (DESIGN.md, "The gateway HTTP API"). It serves on {@link GatewayOptions#eventLoops()} event
 * loops: one server instance on each, sharing the port (Vert.x hands connections round robin).
 * The caller owns the issuer and the stores and closes them after {@link #close()}.
 */
public final class Gateway {
    private static final AtomicInteger RANDOM_PORT_GROUPS = new AtomicInteger();

    private final Vertx vertx;
    private final GatewayOptions options;
    private final List<Endpoint> endpoints;
    private final String deployment;
    private final int port;

    private Gateway(Vertx vertx, GatewayOptions options, List<Endpoint> endpoints, String deployment, int port) {
        this.vertx = vertx;
        this.options = options;
        this.endpoints = endpoints;
        this.deployment = deployment;
        this.port = port;
    }

    /** Validates {@code options} and starts serving; fails if the port cannot be bound. */
    public static Future<Gateway> start(Vertx vertx, GatewayOptions options, LeaseIssuer issuer,
            List<StoreBinding> stores, GatewayMetrics metrics) {
        try {
            options.validate();
            Handler<HttpServerRequest> router = GatewayRouter.create(vertx, options, issuer, stores, metrics);
            List<Endpoint> endpoints = new CopyOnWriteArrayList<>();
            // Instances on one port share its socket. Vert.x shares a random port among servers that
            // ask for the same negative port: one of its own per gateway, never another's.
            int port = options.port() == 0 ? -RANDOM_PORT_GROUPS.incrementAndGet() : options.port();
            return vertx.deployVerticle(() -> {
                        Endpoint endpoint = new Endpoint(serverOptions(options, port), router);
                        endpoints.add(endpoint);
                        return endpoint;
                    }, new DeploymentOptions().setInstances(options.eventLoops()))
                    .map(deployment -> new Gateway(vertx, options, endpoints, deployment,
                            endpoints.get(0).server.actualPort()));
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    private static HttpServerOptions serverOptions(GatewayOptions options, int port) {
        HttpServerOptions http = new HttpServerOptions()
                .setHost(options.host())
                .setPort(port)
                // A client that stops sending mid-request does not hold a connection forever.
                .setIdleTimeout((int) Math.max(1, options.requestTimeout().toSeconds() * 2))
                .setIdleTimeoutUnit(TimeUnit.SECONDS)
                // Every parsing bound from the one place limits live (GatewayLimits).
                .setMaxInitialLineLength(options.limits().maxInitialLineLengthFor(options.maxKeyBytes()))
                .setMaxHeaderSize(options.limits().maxHeaderBytes())
                .setMaxChunkSize(options.limits().maxChunkBytes())
                // No WebSocket routes: without compression offered, Vert.x adds no WebSocket
                // extension handler to each connection's pipeline, which every request passed through.
                .setPerMessageWebSocketCompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false);
        if (options.tls() != null) {
            http.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
                    .setCertPath(options.tls().certPath()).setKeyPath(options.tls().keyPath()));
        }
        return http;
    }

    /** The port actually bound. */
    public int port() {
        return port;
    }

    /**
     * Stops accepting connections, lets requests in flight finish (up to the drain timeout), then
     * undeploys the server instances.
     */
    public Future<Void> close() {
        long drainMs = options.drainTimeout().toMillis();
        List<Future<Void>> drains = endpoints.stream()
                .filter(e -> e.server != null)
                .map(e -> e.server.shutdown(drainMs, TimeUnit.MILLISECONDS))
                .toList();
        return Future.join(drains).transform(drained -> vertx.undeploy(deployment));
    }

    /** One HTTP server on the event loop its deployment was given. */
    private static final class Endpoint extends VerticleBase {
        private final HttpServerOptions http;
        private final Handler<HttpServerRequest> router;
        private volatile HttpServer server;

        Endpoint(HttpServerOptions http, Handler<HttpServerRequest> router) {
            this.http = http;
            this.router = router;
        }

        @Override
        public Future<?> start() {
            return vertx.createHttpServer(http).requestHandler(router).listen().onSuccess(s -> server = s);
        }
    }
}
