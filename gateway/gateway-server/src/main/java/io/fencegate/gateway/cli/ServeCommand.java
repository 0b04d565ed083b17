package io.fencegate.gateway.cli;

import io.fencegate.gateway.FatalErrors;
import io.fencegate.gateway.Gateway;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.Defaults;
import io.fencegate.gateway.config.GatewayConfig;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fencegate serve}: the embedded default without {@code --config}, else the configured
 * backends. Command-line flags beat environment variables, which beat the file. SIGTERM drains
 * requests in flight, then closes stores, issuer sessions and Vert.x.
 */
@Command(name = "serve", description = "Run the gateway (the embedded default without --config).")
final class ServeCommand implements Callable<Integer> {
    private static final long STOP_SECONDS = 30;

    @Option(names = "--config", description = "fencegate.yaml; without it, the embedded default.")
    Path config;

    @Option(names = "--data", defaultValue = "data", description = "Data directory of the embedded default (default: ./data).")
    Path data;

    @Option(names = "--port", description = "Port to listen on (default 8080; 0 picks a free one).")
    Integer port;

    @Option(names = "--host", description = "Address to bind (default 127.0.0.1).")
    String host;

    @Option(names = "--verbose", description = "Print stack traces of start-up failures.")
    boolean verbose;

    private volatile boolean serving;

    boolean serving() {
        return serving;
    }

    @Override
    public Integer call() {
        Backends backends = null;
        Vertx vertx = null;
        try {
            GatewayConfig cfg = config != null ? ConfigLoader.load(config, System.getenv()) : Defaults.embedded(data);
            GatewayOptions options = Defaults.options(cfg);
            if (port != null) {
                options.port(port);
            }
            if (host != null) {
                options.host(host);
            }
            options.validate();
            ListenAddress listen = new ListenAddress(options.host(), options.port(), port != null);
            listen.probe();
            vertx = Vertx.vertx();
            FatalErrors.install(vertx);
            backends = Backends.open(cfg, vertx);
            GatewayMetrics metrics = GatewayMetrics.prometheus();
            Gateway gateway;
            try {
                gateway = Gateway.start(vertx, options, backends.issuer(), backends.stores(), metrics)
                        .await(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw ListenAddress.isBindFailure(e) ? listen.cannotListen(e) : e;
            }
            Runtime.getRuntime().addShutdownHook(new Thread(stop(gateway, backends, vertx), "fencegate-shutdown"));
            String scheme = options.tls() != null ? "https" : "http";
            System.out.println("fencegate listening on " + scheme + "://" + options.host() + ":" + gateway.port()
                    + " (" + backends.describe() + ")");
            System.out.flush();
            serving = true;
            return 0;
        } catch (Exception e) {
            System.err.println("fencegate: cannot start: " + e.getMessage());
            if (verbose) {
                e.printStackTrace();
            }
            if (backends != null) {
                backends.close();
            }
            if (vertx != null) {
                vertx.close();
            }
            return 2;
        }
    }

    private static Runnable stop(Gateway gateway, Backends backends, Vertx vertx) {
        return () -> {
            System.out.println("fencegate stopping: draining requests in flight");
            System.out.flush();
            try {
                gateway.close().await(STOP_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                System.err.println("fencegate: drain incomplete: " + e.getMessage());
            }
            try {
                backends.close();
            } catch (RuntimeException e) {
                System.err.println("fencegate: closing backends: " + e.getMessage());
            }
            try {
                vertx.close().await(STOP_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                System.err.println("fencegate: closing Vert.x: " + e.getMessage());
            }
            System.out.println("fencegate stopped");
            System.out.flush();
        };
    }
}
