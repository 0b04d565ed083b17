package io.fencegate.check.nemesis;

import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.DatabaseServer;
import io.fencegate.testing.MariaDbServer;
import io.fencegate.testing.PgbouncerServer;
import io.fencegate.testing.PostgresServer;
import io.fencegate.testing.RedisServer;
import io.fencegate.testing.SteppedWallClock;
import io.fencegate.testing.TcpProxy;
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
import java.util.Map;

/**
 * A fencegate deployment the harness owns: an issuer backend (a 3-process ZooKeeper ensemble, its
 * own redis-server, or the database itself for the {@code sql} issuer), a database server of its
 * own (PostgreSQL or MariaDB, never the shared one) reached through a {@link TcpProxy}, and two
 * gateway processes, the second one on a clock the harness can step. Every process and data folder
 * goes when it closes, also on Ctrl-C.
 */
final class Deployment implements AutoCloseable {
    enum Backend {
        ZK_POSTGRES, REDIS_MARIADB, SQL_POSTGRES, SQL_MARIADB;

        String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static Backend parse(String s) {
            return valueOf(s.toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    static final int GATEWAYS = 2;

    /** The gateway whose wall clock {@link #clock} steps. */
    static final int STEPPED_GATEWAY = 1;

    final Backend backend;
    final Path dir;
    DatabaseServer database;
    ZooKeeperEnsemble zookeeper;
    RedisServer redis;
    /** The redis-server's wall clock (Redis keeps a lease's expiry on it), stepped by the nemesis. */
    SteppedWallClock redisClock;
    PgbouncerServer pgbouncer;
    TcpProxy proxy;
    SteppedWallClock clock;
    /** The database server's wall clock, for the {@code sql} issuer's deployments (null elsewhere). */
    SteppedWallClock databaseClock;
    /** Backups of the sql issuer's tables, for the restore fault (null elsewhere). */
    IssuerBackups issuerBackups;
    final List<ChildProcess> gateways = new ArrayList<>();
    final List<URI> urls = new ArrayList<>();
    private final Thread cleanUp = new Thread(this::closeQuietly, "nemesis-clean-up");
    private boolean closed;

    private Deployment(Backend backend, Path dir) {
        this.backend = backend;
        this.dir = dir;
    }

    /** Starts it; a failure says which part failed, with the last lines of the logs so far. */
    static Deployment start(Backend backend, Path dir) throws Exception {
        Deployment d = new Deployment(backend, dir);
        // Stopped from outside (Ctrl-C, SIGTERM) at any point, even while starting: take the servers down with us.
        Runtime.getRuntime().addShutdownHook(d.cleanUp);
        try {
            d.open();
            return d;
        } catch (Exception e) {
            String tails = d.tails();
            d.close();
            throw new IllegalStateException(backend.label() + " deployment did not start: " + NemesisCommand.why(e) + "\n" + tails, e);
        }
    }

    private void open() throws Exception {
        Files.createDirectories(dir);
        boolean pg = backend == Backend.ZK_POSTGRES || backend == Backend.SQL_POSTGRES;
        clock = SteppedWallClock.create(dir.resolve("gateway" + STEPPED_GATEWAY + ".clock"), SteppedWallClock.PickUp.WITHIN_A_SECOND);
        boolean sql = backend == Backend.SQL_POSTGRES || backend == Backend.SQL_MARIADB;
        // The sql issuer's times come from the database server's clock: there, the harness steps it.
        databaseClock = sql ? SteppedWallClock.create(dir.resolve("database.clock"), SteppedWallClock.PickUp.WITHIN_A_SECOND) : null;
        Map<String, String> databaseEnv = sql ? databaseClock.environment() : Map.of();
        database = pg ? PostgresServer.start(dir.resolve("postgres"), databaseEnv)
                : MariaDbServer.start(dir.resolve("mariadb"), databaseEnv);
        proxy = TcpProxy.start("127.0.0.1", database.port());
        String[] issuers = new String[GATEWAYS];
        String[] stores = new String[GATEWAYS];
        String pgStore = "main: { type: postgres, host: 127.0.0.1, port: " + proxy.port() + ", database: postgres, schema: "
                + PostgresServer.SCHEMA + ", user: postgres, poolSize: 4, queryTimeout: 2s }";
        String jdbcStore = "main: { type: jdbc, url: \"" + database.jdbcUrlVia(proxy.port()) + "\", user: root, poolSize: 4, queryTimeout: 2s }";
        switch (backend) {
            case ZK_POSTGRES -> {
                zookeeper = ZooKeeperEnsemble.start(dir.resolve("zookeeper"));
                // A short session: a gateway stopped for longer than this loses its session and its leases.
                java.util.Arrays.fill(issuers, "issuer: { type: zookeeper, connectString: \"" + zookeeper.connectString()
                        + "\", sessionTimeout: 3s, operationTimeout: 2s }");
                java.util.Arrays.fill(stores, pgStore);
            }
            case REDIS_MARIADB -> {
                redisClock = SteppedWallClock.create(dir.resolve("redis.clock"), SteppedWallClock.PickUp.AT_ONCE);
                redis = RedisServer.startWithAof(dir.resolve("redis"), redisClock.shimEnvironment());
                redis.snapshot(); // a rollback goes back at least this far
                java.util.Arrays.fill(issuers, "issuer: { type: redis, uri: \"" + redis.uri() + "\", keyPrefix: \"fg-check:\","
                        + " highWaterMarkUrl: \"" + jdbcUrl() + "\", highWaterMarkUser: root }");
                java.util.Arrays.fill(stores, jdbcStore);
            }
            case SQL_POSTGRES -> {
                // Gateway 0 straight to PostgreSQL (the issuer LISTENs for releases); gateway 1 through
                // pgbouncer in transaction mode (no LISTEN, no server-side prepared statements), which
                // reaches PostgreSQL through the same proxy, so every link fault cuts both.
                pgbouncer = PgbouncerServer.start(dir.resolve("pgbouncer"), proxy.port(), "postgres", PostgresServer.SCHEMA, 8);
                issuers[0] = sqlIssuer(database.jdbcUrlVia(proxy.port()) + "&connectTimeout=5&socketTimeout=10", "postgres", true);
                stores[0] = pgStore;
                issuers[1] = sqlIssuer(pgbouncer.jdbcUrl(10), "postgres", false);
                stores[1] = "main: { type: jdbc, url: \"" + pgbouncer.jdbcUrl(10) + "\", user: postgres, poolSize: 4, queryTimeout: 2s }";
            }
            case SQL_MARIADB -> {
                java.util.Arrays.fill(issuers, sqlIssuer(database.jdbcUrlVia(proxy.port()) + "?connectTimeout=5000&socketTimeout=10000",
                        "root", true));
                java.util.Arrays.fill(stores, jdbcStore);
            }
        }
        for (int i = 0; i < GATEWAYS; i++) {
            launchGateway(i, issuers[i], stores[i], 1);
        }
        for (int i = 0; i < GATEWAYS; i++) {
            for (int attempt = 1; ; attempt++) {
                try {
                    awaitGateway(i, 120);
                    break;
                } catch (IllegalStateException e) {
                    // Its port taken, or (on a loaded machine) its store did not answer within the
                    // gateway's start-up timeout: start it again, on a fresh port.
                    ChildProcess g = gateways.get(i);
                    if (attempt == 3 || g.alive()) {
                        throw e;
                    }
                    System.err.println("nemesis: " + g.name() + " exited while starting" + (g.bindFailed() ? " (port taken)" : "")
                            + "; again, attempt " + (attempt + 1));
                    launchGateway(i, issuers[i], stores[i], attempt + 1);
                }
            }
        }
        if (sql) {
            issuerBackups = new IssuerBackups(database, dir.resolve("issuer-backups"));
            issuerBackups.take(); // the first restore goes back to here
        }
    }

    private void launchGateway(int i, String issuer, String store, int attempt) throws Exception {
        int port = ChildProcess.freePort();
        Path config = dir.resolve("gateway" + i + ".yaml");
        Files.writeString(config, "server: { port: " + port + " }\nlimits: { requestTimeout: 3s }\n" + issuer
                + "\nstores:\n  " + store + "\n");
        ChildProcess g = HarnessJvm.start("gateway" + i + (attempt > 1 ? "-" + attempt : ""), dir,
                "io.fencegate.gateway.cli.Main", List.of("-Xmx192m"), List.of("serve", "--config", config.toString()),
                i == STEPPED_GATEWAY ? clock.environment() : Map.of());
        URI url = URI.create("http://127.0.0.1:" + port + "/");
        if (i < gateways.size()) {
            gateways.set(i, g);
            urls.set(i, url);
        } else {
            gateways.add(g);
            urls.add(url);
        }
    }

    /** {@code type: sql}: leases from the deployment's own database, the one the store's table lives in. */
    private static String sqlIssuer(String url, String user, boolean notifications) {
        return "issuer: { type: sql, url: \"" + url + "\", user: " + user + ", notifications: " + notifications + " }";
    }

    /** The store's database, directly (not through the proxy): for the bypass control and the Redis mark. */
    String jdbcUrl() {
        return database.jdbcUrl();
    }

    /**
     * Starts gateway {@code i} again on its port after a kill. A start that exits is retried: on a
     * loaded machine its store may not answer within the gateway's start-up timeout, and a gateway
     * left down would stretch every later fault until the next kill of it.
     */
    void restartGateway(int i) throws Exception {
        for (int attempt = 1; ; attempt++) {
            gateways.get(i).startAgain();
            try {
                awaitGateway(i, 120);
                return;
            } catch (IllegalStateException e) {
                if (attempt == 3 || gateways.get(i).alive()) {
                    throw e;
                }
                System.err.println("nemesis: gateway" + i + " exited while restarting; again, attempt " + (attempt + 1));
            }
        }
    }

    /** Waits until gateway {@code i} answers /health (200 or 503: it is up, its backends may not be). */
    void awaitGateway(int i, long seconds) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (!gateways.get(i).alive()) {
                throw new IllegalStateException("gateway" + i + " exited\n" + gateways.get(i).tail());
            }
            try {
                http.send(HttpRequest.newBuilder(urls.get(i).resolve("health")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding());
                return;
            } catch (java.io.IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("gateway" + i + " not up after " + seconds + " s\n" + gateways.get(i).tail());
    }

    /**
     * Waits until every gateway answers /health with 200 (its issuer and stores answer real round
     * trips); null when they all do, else what was still unhealthy after {@code seconds}.
     */
    String awaitHealthy(long seconds) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        List<String> unhealthy = new ArrayList<>();
        do {
            unhealthy.clear();
            for (URI url : urls) {
                try {
                    int status = http.send(HttpRequest.newBuilder(url.resolve("health")).timeout(Duration.ofSeconds(2)).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode();
                    if (status != 200) {
                        unhealthy.add(url + " answered " + status);
                    }
                } catch (java.io.IOException e) {
                    unhealthy.add(url + " unreachable");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return "interrupted";
                }
            }
            if (unhealthy.isEmpty()) {
                return null;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        } while (System.nanoTime() < deadline);
        return "not healthy after " + seconds + " s: " + String.join(", ", unhealthy);
    }

    /** The last log lines of every server it runs: what a harness failure shows. */
    String tails() {
        StringBuilder b = new StringBuilder();
        for (ChildProcess g : new ArrayList<>(gateways)) {
            b.append(g.tail());
        }
        if (zookeeper != null) {
            b.append(zookeeper.tails());
        }
        if (redis != null) {
            b.append(redis.tail());
        }
        if (pgbouncer != null) {
            b.append(pgbouncer.tail());
        }
        if (database != null) {
            b.append(database.tail());
        }
        return b.toString();
    }

    private void closeQuietly() {
        try {
            close();
        } catch (Exception e) {
            System.err.println("nemesis: clean-up: " + e);
        }
    }

    @Override
    public synchronized void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(cleanUp);
        } catch (IllegalStateException shuttingDown) {
            // closing from the hook itself
        }
        List<AutoCloseable> parts = new ArrayList<>(gateways);
        parts.addAll(java.util.Arrays.asList(zookeeper, redis, pgbouncer, proxy, database));
        for (AutoCloseable part : parts) {
            if (part != null) {
                try {
                    part.close(); // each one, even when another failed: nothing may outlive the run
                } catch (Exception e) {
                    System.err.println("nemesis: clean-up of " + part + ": " + e);
                }
            }
        }
    }
}
