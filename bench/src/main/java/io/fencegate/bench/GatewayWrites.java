package io.fencegate.bench;

import static io.fencegate.bench.WriteBenchData.VALUE;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.client.FencegateClient;
import io.fencegate.client.WriteOutcome;
import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import io.fencegate.store.sql.PostgresGuardSql;
import io.fencegate.testing.GatewayProcess;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Guarded writes through the gateway (a child process, reactive Postgres store {@code pg} and
 * JDBC MariaDB store {@code maria}), 100-byte values over 10k keys, against the database doing
 * the same work without the gateway: pgbench running the gateway's own guarded statement and a
 * plain upsert on Postgres; the JDBC store as a library and a plain upsert on MariaDB. Both stores
 * are {@code same-lease} with one store lock, so one lease's token writes every key many times:
 * the guard is still evaluated on every row, and the bench needs one lease, not 10k.
 */
final class GatewayWrites implements AutoCloseable {
    static final String POSTGRES = "Guarded writes: gateway on Postgres";
    static final String MARIADB = "Guarded writes: gateway on MariaDB";
    static final String CLIENT = "Java client vs a pooled async HTTP client";
    static final String BATCHES = "Batched writes: gateway on Postgres";
    static final int KEYS = 10_000;
    static final int POOL = 16;
    private final String name = WriteBenchData.freshNamespace();
    private final Path workDir;
    private final GatewayProcess gateway;
    private final Vertx vertx = Vertx.vertx();
    private final WebClient web;
    private final FencegateClient client;
    private final FencegateClient jdkClient;
    /** The Java client batching writes in flight over {@code POST /v1/stores/{store}/writes}. */
    private final FencegateClient batchClient;
    private final long token;
    private final JdbcGuardedStore mariaStore;
    private final HikariDataSource mariaPool;
    private final GatewayTransfers transfers;

    /** {@code jitWarmUp}: the most the fresh gateway is loaded, until its JIT settles, before anything is measured. */
    GatewayWrites(Path workDir, Duration jitWarmUp) throws Exception {
        this.workDir = workDir;
        Files.createDirectories(workDir);
        try (Connection pg = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             Statement s = pg.createStatement()) {
            s.execute("CREATE SCHEMA " + name);
            s.execute("CREATE TABLE " + name + ".bench_plain (resource VARCHAR PRIMARY KEY, val BYTEA, token BIGINT NOT NULL)");
            s.execute("CREATE SCHEMA " + name + "_bank");
        }
        try (Connection maria = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/", "root", "");
             Statement s = maria.createStatement()) {
            s.execute("CREATE DATABASE " + name);
            s.execute("CREATE TABLE " + name + ".bench_plain (resource VARBINARY(2048) PRIMARY KEY, val LONGBLOB,"
                    + " token BIGINT NOT NULL) ENGINE = InnoDB");
        }
        String mariaUrl = "jdbc:mariadb://127.0.0.1:3306/" + name;
        Path config = workDir.resolve("fencegate.yaml");
        Files.writeString(config, String.join("\n",
                "issuer:",
                "  type: embedded-zookeeper",
                "  dataDir: " + workDir.resolve("zookeeper"),
                "stores:",
                "  pg:",
                "    type: postgres",
                "    database: test",
                "    schema: " + name,
                "    user: postgres",
                "    poolSize: " + POOL,
                "    rule: same-lease",
                "    lock: bench",
                // The two-item transfers (GatewayTransfers): a lock per account, so each write carries its own token.
                "  " + GatewayTransfers.STORE + ":",
                "    type: postgres",
                "    database: test",
                "    schema: " + name + "_bank",
                "    user: postgres",
                "    poolSize: " + POOL,
                "    rule: same-lease",
                "  maria:",
                "    type: jdbc",
                "    url: \"" + mariaUrl + "\"",
                "    user: root",
                "    poolSize: " + POOL,
                "    rule: same-lease",
                "    lock: bench",
                ""));
        gateway = BenchGateway.start(config, workDir);
        // Idle connections are dropped at 30 s, before the gateway closes them (at twice its 30-s request
        // timeout): with both at 60 s, a connection idle since the c=64 scenario was once reused just as
        // the gateway closed it, failing a later scenario with "Connection was closed".
        web = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true).setKeepAliveTimeout(30),
                new PoolOptions().setHttp1MaxSize(64));
        client = FencegateClient.builder(gateway.uri()).build();
        // As the client built its own JDK HttpClient before: HTTP/1.1, a direct executor.
        jdkClient = FencegateClient.builder(gateway.uri()).httpClient(HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1).executor(Runnable::run).build()).build();
        batchClient = FencegateClient.builder(gateway.uri()).batchWrites().build();
        token = client.acquire("bench", Duration.ofHours(1), Duration.ZERO)
                .orElseThrow(() -> new IllegalStateException("no lease on the bench lock")).token();
        // A cold gateway answers its first requests slowly (class loading, JIT, pool connects): prime both stores.
        for (int i = 0; i < 200; i++) {
            client.put("pg", key(), token, VALUE);
            client.put("maria", key(), token, VALUE);
        }
        transfers = new GatewayTransfers(client, web, gateway.port(), workDir, name + "_bank");
        mariaStore = JdbcGuardedStore.open(new JdbcStoreOptions().jdbcUrl(mariaUrl).username("root").password("")
                .name("maria").rule(GuardRule.SAME_LEASE).poolSize(POOL));
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(mariaUrl);
        hikari.setUsername("root");
        hikari.setMaximumPoolSize(64);
        mariaPool = new HikariDataSource(hikari);
        if (jitWarmUp.compareTo(Duration.ZERO) > 0) {
            // Every HTTP client the scenarios measure takes part, not only WebClient: the warm-up also
            // compiles this JVM's side of each (the Java client's async path ran 3x its settled CPU a
            // request in its first 3-s repetition when only WebClient's had been warmed).
            JitWarmUp.run(web, gateway.port(), List.of(gatewayPut("warm-up pg", "pg"), gatewayPut("warm-up maria", "maria"),
                    clientPut("warm-up client", client), clientPut("warm-up client on JDK", jdkClient)),
                    List.of(1, 16), Duration.ofSeconds(1), jitWarmUp);
        }
    }

    private static String key() {
        return "k" + ThreadLocalRandom.current().nextInt(1, KEYS + 1);
    }

    List<Scenario> scenarios() throws Exception {
        String valueHex = "'\\x" + HexFormat.of().formatHex(VALUE) + "'";
        String guarded = "\\set k random(1, " + KEYS + ")\n"
                + PostgresGuardSql.write(false).replace("$1", "('k' || :k)").replace("$2", valueHex).replace("$3", Long.toString(token))
                + ";\n";
        String plain = "\\set k random(1, " + KEYS + ")\n"
                + "INSERT INTO bench_plain (resource, val, token) VALUES ('k' || :k, " + valueHex + "::bytea, " + token + ")"
                + " ON CONFLICT (resource) DO UPDATE SET val = EXCLUDED.val, token = EXCLUDED.token;\n";
        List<Contender> postgres = List.of(
                gatewayPut("fencegate gateway, postgres store (Vert.x WebClient)", "pg"),
                new Pgbench("pgbench, the same guarded statement", workDir, "guarded", guarded, name),
                new Pgbench("pgbench, a plain INSERT … ON CONFLICT DO UPDATE", workDir, "plain", plain, name));
        List<Contender> maria = List.of(
                gatewayPut("fencegate gateway, jdbc store on MariaDB (Vert.x WebClient)", "maria"),
                new AsyncContender("JdbcGuardedStore as a library, same MariaDB") {
                    @Override
                    protected CompletionStage<?> op(int slot) {
                        return mariaStore.write(key(), token, VALUE).thenApply(GatewayWrites::applied);
                    }
                },
                new BlockingContender("JDBC plain INSERT … ON DUPLICATE KEY UPDATE (HikariCP)") {
                    @Override
                    protected void op(int worker, int concurrency) throws Exception {
                        try (Connection c = mariaPool.getConnection();
                             PreparedStatement ps = c.prepareStatement("INSERT INTO bench_plain (resource, val, token)"
                                     + " VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE val = VALUES(val), token = VALUES(token)")) {
                            ps.setBytes(1, key().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                            ps.setBytes(2, VALUE);
                            ps.setLong(3, token);
                            ps.executeUpdate();
                        }
                    }
                });
        List<Contender> clients = List.of(
                clientPut("FencegateClient (default: Apache HttpClient 5)", client),
                gatewayPut("Vert.x WebClient (pooled, async)", "pg"),
                clientPut("FencegateClient on a JDK HttpClient (its earlier transport)", jdkClient));
        String unit = "guarded PUT";
        List<Scenario> scenarios = new java.util.ArrayList<>(List.of(
                new Scenario(POSTGRES, "in flight", unit, 1, postgres),
                new Scenario(POSTGRES, "in flight", unit, 16, postgres),
                new Scenario(POSTGRES, "in flight", unit, 64, postgres),
                new Scenario(MARIADB, "in flight", unit, 1, maria),
                new Scenario(MARIADB, "in flight", unit, 16, maria),
                new Scenario(MARIADB, "in flight", unit, 64, maria),
                new Scenario(CLIENT, "in flight, postgres store", unit, 16, clients)));
        // The batch route, through the client that fills it: 64 writes in flight, each its own caller's
        // future; against pgbench with 64 connections running the guarded statement, one write a transaction.
        scenarios.add(new Scenario(BATCHES, "in flight", unit, 64, List.of(
                clientPut("fencegate gateway, batch route (FencegateClient.batchWrites)", batchClient),
                postgres.get(1),
                gatewayPut("fencegate gateway, single PUTs (Vert.x WebClient)", "pg"))));
        scenarios.addAll(transfers.scenarios());
        return scenarios;
    }

    private static Object applied(Object result) {
        if (!(result instanceof Applied)) {
            throw new IllegalStateException("not applied: " + result);
        }
        return result;
    }

    private AsyncContender clientPut(String label, FencegateClient through) {
        return new AsyncContender(label) {
            @Override
            protected CompletionStage<?> op(int slot) {
                return through.putAsync("pg", key(), token, VALUE).thenApply(outcome -> {
                    if (!(outcome instanceof WriteOutcome.Applied)) {
                        throw new IllegalStateException("not applied: " + outcome);
                    }
                    return outcome;
                });
            }
        };
    }

    private AsyncContender gatewayPut(String label, String store) {
        Buffer body = Buffer.buffer(VALUE);
        String header = Long.toString(token);
        return new AsyncContender(label) {
            @Override
            protected CompletionStage<?> op(int slot) {
                return web.put(gateway.port(), "127.0.0.1", "/v1/stores/" + store + "/items/" + key())
                        .putHeader("Fencing-Token", header)
                        .sendBuffer(body)
                        .toCompletionStage()
                        .thenCompose(response -> response.statusCode() == 200
                                ? CompletableFuture.completedFuture(response)
                                : CompletableFuture.failedFuture(new IllegalStateException(
                                        "PUT answered " + response.statusCode() + ": " + response.bodyAsString())));
            }
        };
    }

    @Override
    public void close() throws Exception {
        mariaStore.close();
        mariaPool.close();
        web.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
        gateway.close();
        try (Connection pg = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             Statement s = pg.createStatement()) {
            s.execute("DROP SCHEMA " + name + " CASCADE");
            s.execute("DROP SCHEMA " + name + "_bank CASCADE");
        }
        try (Connection maria = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/", "root", "");
             Statement s = maria.createStatement()) {
            s.execute("DROP DATABASE " + name);
        }
    }
}
