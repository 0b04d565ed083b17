package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.Lease;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code issuer.schema} and {@code stores.X.schema} on a real PostgreSQL: the SQL issuer's tables
 * and a jdbc store's land in the schema named, and two deployments on one database, one schema
 * each, keep their locks and tokens apart (their connections are pinned, which the issuer's place
 * check allows); a gateway without a schema on that database is refused, as two sets are there.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SchemaSettingIT {
    private static final String DB = "fg_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/" + DB;

    private Path data;
    private Vertx vertx;

    @BeforeAll
    static void createDatabase() throws Exception {
        admin("jdbc:postgresql://127.0.0.1:5432/postgres", "CREATE DATABASE " + DB);
        // A store's schema must exist (as for type: postgres); the issuer creates its own.
        admin(URL, "CREATE SCHEMA store_a");
        admin(URL, "CREATE SCHEMA store_b");
    }

    @AfterAll
    static void dropDatabase() throws Exception {
        admin("jdbc:postgresql://127.0.0.1:5432/postgres", "DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
    }

    @BeforeEach
    void setUp() throws Exception {
        data = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"))), "schema");
        vertx = Vertx.vertx();
    }

    @AfterEach
    void tearDown() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    private static void admin(String url, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static List<String> schemasHolding(String table) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(URL, "postgres", ""); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT table_schema FROM information_schema.tables WHERE table_name = '"
                        + table + "' ORDER BY 1")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static String deployment(String issuerSchema, String storeSchema) {
        return "issuer: { type: sql, url: \"" + URL + "\", user: postgres, schema: " + issuerSchema + " }\n"
                + "stores:\n  main: { type: jdbc, url: \"" + URL + "\", user: postgres, schema: " + storeSchema + " }\n";
    }

    private Backends open(String yaml) throws Exception {
        return Backends.open(ConfigLoader.parse(yaml, Map.of()), vertx);
    }

    private static Lease acquire(Backends b, String lock) throws Exception {
        return b.issuer().acquire(lock, Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                .get(20, TimeUnit.SECONDS).orElseThrow(() -> new AssertionError("no lease on " + lock));
    }

    @Test
    void twoDeploymentsOnOneDatabaseKeepTheirTablesAndLocksInTheirOwnSchemas() throws Exception {
        try (Backends a = open(deployment("issuer_a", "store_a")); Backends b = open(deployment("issuer_b", "store_b"))) {
            assertThat(schemasHolding("fencegate_lock_fence")).containsExactly("issuer_a", "issuer_b");
            assertThat(schemasHolding("fencegate_store_claim")).containsExactly("store_a", "store_b");
            assertThat(schemasHolding("fencegate_issuer_schema_history")).containsExactly("issuer_a", "issuer_b");

            // One lock name, held in both deployments at once: each issuer has its own fence.
            Lease inA = acquire(a, "orders/1");
            Lease inB = acquire(b, "orders/1");
            assertThat(inA.token()).isPositive();
            assertThat(inB.token()).isPositive();
            assertThat(a.issuer().acquire("orders/1", Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS)).as("A's lock stays held in A").isEmpty();
        }
        // Opening A again finds its tables where they were; nothing went into public.
        try (Backends again = open(deployment("issuer_a", "store_a"))) {
            assertThat(schemasHolding("fencegate_lock_fence")).containsExactly("issuer_a", "issuer_b");
        }
    }

    @Test
    void aGatewayWithoutASchemaOnADatabaseWithTwoSetsIsRefusedNamingIssuerUrl() throws Exception {
        try (Backends a = open(deployment("issuer_a", "store_a")); Backends b = open(deployment("issuer_b", "store_b"))) {
            assertThatThrownBy(() -> open("issuer: { type: sql, url: \"" + URL + "\", user: postgres }\n"
                            + "stores:\n  docs: { type: files, dir: \"" + Files.createDirectories(data.resolve("files")) + "\" }\n")
                            .close())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("issuer.url: ")
                    .hasMessageContaining("issuer_a").hasMessageContaining("issuer_b");
        }
    }

    @Test
    void aSchemaOnAnotherDatabaseThanPostgresIsRefusedByName() {
        assertThatThrownBy(() -> Backends.validate(ConfigLoader.parse(
                "issuer: { type: sql, url: \"jdbc:mariadb://127.0.0.1:3306/x\", schema: fg }\n"
                        + "stores:\n  main: { type: jdbc, url: \"jdbc:h2:mem:x\", schema: fg }\n", Map.of())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("issuer.schema: a schema of the issuer's own is supported on PostgreSQL only")
                .hasMessageContaining("stores.main.schema: a schema of the store's own is supported on PostgreSQL only");
    }
}
