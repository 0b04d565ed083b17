package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.GatewayConfig;
import io.fencegate.testing.GatewayProcess;
import io.vertx.core.Vertx;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a new user does first: start three gateways at the same moment on a new, empty database
 * (or Redis key prefix, ZooKeeper, files folder), for every issuer type and store type.
 * Each gateway is in this JVM on a Vert.x of its own, as separate processes would be; they migrate,
 * claim and open at once. Every one must come up and serve, and the lease one grants is held
 * against the others.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SimultaneousStartIT {

    private static final int GATEWAYS = 3;

    enum Deployment {
        SQL_ISSUER_POSTGRES_REACTIVE_STORE(true, """
                issuer: { type: sql, url: "jdbc:postgresql://127.0.0.1:5432/DB", user: postgres, password: "" }
                stores:
                  main: { type: postgres, host: 127.0.0.1, port: 5432, database: DB, user: postgres, password: "" }
                """),
        SQL_ISSUER_POSTGRES_JDBC_STORE(true, """
                issuer: { type: sql, url: "jdbc:postgresql://127.0.0.1:5432/DB", user: postgres, password: "" }
                stores:
                  main: { type: jdbc, url: "jdbc:postgresql://127.0.0.1:5432/DB", user: postgres, password: "" }
                """),
        SQL_ISSUER_MARIADB_JDBC_STORE(false, """
                issuer: { type: sql, url: "jdbc:mariadb://127.0.0.1:3306/DB", user: root, password: "" }
                stores:
                  main: { type: jdbc, url: "jdbc:mariadb://127.0.0.1:3306/DB", user: root, password: "" }
                """),
        /** Redis (a key prefix of the test's own, one shared mark file) with a files store in one shared folder. */
        REDIS_ISSUER_FILES_STORE(null, """
                issuer: { type: redis, uri: "redis://127.0.0.1:6379", keyPrefix: "DB:", highWaterMarkFile: "DIR/redis.mark" }
                stores:
                  main: { type: files, dir: "DIR/files" }
                """),
        /** ZooKeeper (a test server) with the JDBC store on Postgres. */
        ZOOKEEPER_ISSUER_POSTGRES_JDBC_STORE(true, """
                issuer: { type: zookeeper, connectString: "ZK" }
                stores:
                  main: { type: jdbc, url: "jdbc:postgresql://127.0.0.1:5432/DB", user: postgres, password: "" }
                """);

        /** Postgres, MariaDB, or no database (null). */
        final Boolean postgres;
        final String yaml;

        Deployment(Boolean postgres, String yaml) {
            this.postgres = postgres;
            this.yaml = yaml;
        }
    }

    @ParameterizedTest
    @EnumSource(Deployment.class)
    void gatewaysStartedAtOnceOnAnEmptyDatabaseAllServe(Deployment deployment) throws Exception {
        String database = "fg_start_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        admin(deployment, "CREATE DATABASE " + database);
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "simultaneous");
        Files.createDirectories(dir.resolve("files"));
        TestingServer zookeeper = deployment.yaml.contains("ZK") ? new TestingServer(true) : null;
        List<Vertx> vertxes = new ArrayList<>();
        List<CompletableFuture<GatewayHarness>> starts = new ArrayList<>();
        try {
            GatewayConfig config = ConfigLoader.parse(deployment.yaml.replace("DB", database).replace("DIR", dir.toString())
                    .replace("ZK", zookeeper == null ? "" : zookeeper.getConnectString()), Map.of());
            CountDownLatch go = new CountDownLatch(1);
            for (int i = 0; i < GATEWAYS; i++) {
                Vertx vertx = Vertx.vertx(BlockedThreadWatch.options());
                vertxes.add(vertx);
                starts.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        go.await();
                        Backends backends = Backends.open(config, vertx);
                        return new GatewayHarness(new GatewayOptions(), backends.issuer(), backends.stores(), List.of(backends));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            go.countDown();
            List<GatewayHarness> gateways = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (CompletableFuture<GatewayHarness> start : starts) {
                try {
                    gateways.add(start.get(120, TimeUnit.SECONDS));
                } catch (Exception e) {
                    failures.add(e);
                }
            }
            try {
                assertThat(failures).as("gateways that failed to start").isEmpty();
                String key = "k-" + UUID.randomUUID();
                Lease lease = gateways.get(0).client().acquire("main/" + key, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
                for (GatewayHarness gw : gateways) {
                    assertThat(gw.send(gw.request("/health").GET()).statusCode()).isEqualTo(200);
                    FencegateClient client = gw.client();
                    if (gw != gateways.get(0)) {
                        assertThat(client.acquire("main/" + key, Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
                    }
                }
                assertThat(gateways.get(GATEWAYS - 1).client().put("main", key, lease.token(),
                        "v".getBytes(StandardCharsets.UTF_8)).applied()).isTrue();
            } finally {
                for (GatewayHarness gw : gateways) {
                    gw.close();
                }
            }
        } finally {
            for (Vertx vertx : vertxes) {
                vertx.close().await(10, TimeUnit.SECONDS);
            }
            admin(deployment, "DROP DATABASE IF EXISTS " + database + (Boolean.TRUE.equals(deployment.postgres) ? " WITH (FORCE)" : ""));
            if (zookeeper != null) {
                zookeeper.close();
            }
            if (deployment.postgres == null) {
                // The Redis keys under the test's own prefix.
                new ProcessBuilder("sh", "-c", "redis-cli -h 127.0.0.1 --scan --pattern '" + database
                        + ":*' | xargs -r redis-cli -h 127.0.0.1 DEL").inheritIO().start().waitFor(30, TimeUnit.SECONDS);
            }
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * The same start as separate processes through README's launcher, as a new user runs it: three JVMs
     * that load classes, compile and migrate at once compete for the cores far more than three Vert.x
     * instances in one warm JVM do. The SQL issuer and the reactive Postgres store, on a database created
     * the moment before: every gateway must come up, answer {@code /health} UP and serve a guarded write.
     */
    @Test
    void gatewaysLaunchedAtOnceAsProcessesOnANewPostgresDatabaseAllServe() throws Exception {
        Deployment deployment = Deployment.SQL_ISSUER_POSTGRES_REACTIVE_STORE;
        String database = "fg_launch_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        admin(deployment, "CREATE DATABASE " + database);
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "launched");
        List<GatewayProcess> gateways = new ArrayList<>();
        try {
            Path config = dir.resolve("fencegate.yaml");
            Files.writeString(config, deployment.yaml.replace("DB", database));
            for (int i = 0; i < GATEWAYS; i++) {
                gateways.add(FencegateScript.launch(dir, Map.of("FENCEGATE_JAVA_OPTS", "-Xmx256m"),
                        "serve", "--config", config.toString(), "--port", "0"));
            }
            for (GatewayProcess gw : gateways) {
                gw.awaitReady(150); // three JVMs starting on a busy 2-core machine
            }
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            String key = "k-" + UUID.randomUUID();
            for (GatewayProcess gw : gateways) {
                HttpResponse<String> health = http.send(HttpRequest.newBuilder(gw.uri().resolve("/health"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(health.statusCode()).as(health.body() + "\n" + gw.output()).isEqualTo(200);
                FencegateClient client = FencegateClient.builder(gw.uri()).build();
                Lease lease = client.acquire("main/" + key, Duration.ofSeconds(30), Duration.ofSeconds(30)).orElseThrow();
                assertThat(client.put("main", key, lease.token(), "v".getBytes(StandardCharsets.UTF_8)).applied())
                        .as("a guarded write through " + gw.uri()).isTrue();
                client.release(lease.leaseId());
            }
            for (GatewayProcess gw : gateways) {
                assertThat(gw.output()).as("no store was ever reported unavailable").doesNotContain("unavailable");
            }
        } finally {
            for (GatewayProcess gw : gateways) {
                gw.close();
            }
            admin(deployment, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static void admin(Deployment deployment, String sql) throws Exception {
        if (deployment.postgres == null) {
            return;
        }
        String url = deployment.postgres ? "jdbc:postgresql://127.0.0.1:5432/test" : "jdbc:mariadb://127.0.0.1:3306/test";
        try (Connection c = DriverManager.getConnection(url, deployment.postgres ? "postgres" : "root", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
