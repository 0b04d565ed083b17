package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.GatewayConfig;
import io.vertx.core.Vertx;
import java.net.http.HttpRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gateway whose SQL issuer fails closed (here: a second set of the issuer's tables appears in its
 * database, which its URL does not pin a schema in) says so where an operator looks: /health
 * answers 503 with the issuer DOWN, {@code fencegate_issuer_fail_closed} is 1, a lease request answers
 * 503; and all of it clears by itself once the second set is gone. On a database of the test's own.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SqlIssuerRefusalGatewayIT {

    private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";

    @Test
    void aRefusingIssuerShowsInHealthAndMetricsAndRecoversByItself() throws Exception {
        String database = "fg_refuse_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        admin("test", "CREATE DATABASE " + database);
        Vertx vertx = Vertx.vertx();
        try {
            String yaml = """
                    issuer: { type: sql, url: "%s", user: postgres, password: "" }
                    stores:
                      main: { type: jdbc, url: "%s", user: postgres, password: "" }
                    """.formatted(SERVER + database, SERVER + database);
            GatewayConfig config = ConfigLoader.parse(yaml, Map.of());
            Backends backends = Backends.open(config, vertx);
            try (GatewayHarness gw = new GatewayHarness(new GatewayOptions(), backends.issuer(), backends.stores(), List.of(backends))) {
                assertThat(status(gw, "/health")).isEqualTo(200);
                assertThat(body(gw, "/metrics")).contains("fencegate_issuer_fail_closed 0.0");

                admin(database, "CREATE SCHEMA other", "CREATE TABLE other.fencegate_lock_fence (lock_key BYTEA PRIMARY KEY)");
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    assertThat(status(gw, "/health")).isEqualTo(503);
                    assertThat(body(gw, "/metrics")).contains("fencegate_issuer_fail_closed 1.0");
                });
                assertThat(gw.send(gw.request("/v1/leases").header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"lock\":\"main/x\",\"ttlMs\":10000}"))).statusCode())
                        .isEqualTo(503);

                admin(database, "DROP SCHEMA other CASCADE");
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    assertThat(status(gw, "/health")).isEqualTo(200);
                    assertThat(body(gw, "/metrics")).contains("fencegate_issuer_fail_closed 0.0");
                });
                assertThat(gw.client().acquire("main/x", Duration.ofSeconds(10), Duration.ZERO)).isPresent();
            }
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
            admin("test", "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    private static int status(GatewayHarness gw, String path) throws Exception {
        return gw.send(gw.request(path).GET()).statusCode();
    }

    private static String body(GatewayHarness gw, String path) throws Exception {
        return gw.send(gw.request(path).GET()).body();
    }

    private static void admin(String database, String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection(SERVER + database, "postgres", ""); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
