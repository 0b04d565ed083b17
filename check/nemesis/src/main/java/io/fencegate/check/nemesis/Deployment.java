package io.fencegate.check.nemesis;

import io.fencegate.store.testkit.ScratchDatabase;
import io.fencegate.store.testkit.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A fencegate deployment the harness owns: an issuer backend (a 3-process ZooKeeper ensemble, or
 * its own redis-server), a database of its own on the shared Postgres or MariaDB reached through a
 * {@link TcpProxy}, and two gateway processes.
 */
final class Deployment implements AutoCloseable {
    enum Backend {
        ZK_POSTGRES, REDIS_MARIADB;

        String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static Backend parse(String s) {
            return valueOf(s.toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    static final int GATEWAYS = 2;

    final Backend backend;
    final Path dir;
    ScratchDatabase database;
    ZooKeeperEnsemble zookeeper;
    RedisServer redis;
    TcpProxy proxy;
    final List<ChildProcess> gateways = new ArrayList<>();
    final List<URI> urls = new ArrayList<>();

    private Deployment(Backend backend, Path dir) {
        this.backend = backend;
        this.dir = dir;
    }

    static Deployment start(Backend backend, Path dir) throws Exception {
        Deployment d = new Deployment(backend, dir);
        try {
            d.open();
            return d;
        } catch (Exception e) {
            d.close();
            throw e;
        }
    }

    private void open() throws Exception {
        Files.createDirectories(dir);
        boolean pg = backend == Backend.ZK_POSTGRES;
        database = ScratchDatabase.create(pg ? ScratchDatabase.Kind.POSTGRES : ScratchDatabase.Kind.MARIADB, "fg_check_");
        proxy = TcpProxy.start("127.0.0.1", database.port());
        String issuer;
        if (pg) {
            zookeeper = ZooKeeperEnsemble.start(dir.resolve("zookeeper"));
            // A short session: a gateway stopped for longer than this loses its session and its leases.
            issuer = "issuer: { type: zookeeper, connectString: \"" + zookeeper.connectString()
                    + "\", sessionTimeout: 3s, operationTimeout: 2s }";
        } else {
            redis = RedisServer.start(dir.resolve("redis"));
            redis.snapshot(); // a rollback goes back at least this far
            issuer = "issuer: { type: redis, uri: \"" + redis.uri() + "\", keyPrefix: \"fg-check:\", highWaterMarkUrl: \""
                    + jdbcUrl() + "\", highWaterMarkUser: root }";
        }
        String store = pg
                ? "main: { type: postgres, host: 127.0.0.1, port: " + proxy.port() + ", database: test, schema: " + database.name()
                        + ", user: postgres, poolSize: 4, queryTimeout: 2s }"
                : "main: { type: jdbc, url: \"jdbc:mariadb://127.0.0.1:" + proxy.port() + "/" + database.name()
                        + "\", user: root, poolSize: 4, queryTimeout: 2s }";
        for (int i = 0; i < GATEWAYS; i++) {
            int port = ChildProcess.freePort();
            Path config = dir.resolve("gateway" + i + ".yaml");
            Files.writeString(config, "server: { port: " + port + " }\nlimits: { requestTimeout: 3s }\n" + issuer
                    + "\nstores:\n  " + store + "\n");
            gateways.add(ChildProcess.java("gateway" + i, dir, "io.fencegate.gateway.cli.Main", List.of("-Xmx192m"),
                    List.of("serve", "--config", config.toString())));
            urls.add(URI.create("http://127.0.0.1:" + port + "/"));
        }
        for (int i = 0; i < GATEWAYS; i++) {
            awaitGateway(i, 120);
        }
    }

    /** The store's database, directly (not through the proxy): for the bypass control and the Redis mark. */
    String jdbcUrl() {
        return database.url();
    }

    String dbUser() {
        return database.user();
    }

    /** Waits until gateway {@code i} answers /health (200 or 503: it is up, its backends may not be). */
    void awaitGateway(int i, long seconds) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (!gateways.get(i).alive()) {
                throw new IllegalStateException("gateway" + i + " exited: " + gateways.get(i).output());
            }
            try {
                http.send(HttpRequest.newBuilder(urls.get(i).resolve("health")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding());
                return;
            } catch (java.io.IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("gateway" + i + " not up after " + seconds + " s; see " + gateways.get(i).log());
    }

    @Override
    public void close() throws Exception {
        for (ChildProcess g : gateways) {
            g.close();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (database != null) {
            database.close();
        }
    }
}
