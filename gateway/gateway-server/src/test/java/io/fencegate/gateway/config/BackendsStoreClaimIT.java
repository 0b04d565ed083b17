package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Start-up refuses what would break the per-store promises: two stores on one Postgres schema
 * (rows are keyed by the bare key, locks and API-key scopes per store), and a key limit above
 * what a store's key column holds. Real Postgres, embedded ZooKeeper.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BackendsStoreClaimIT {
    private final String schema = "fg_claim_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private Path data;
    private Vertx vertx;

    @BeforeEach
    void setUp() throws Exception {
        admin("CREATE SCHEMA " + schema);
        Path base = Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(base);
        data = Files.createTempDirectory(base, "claim");
        vertx = Vertx.vertx();
    }

    @AfterEach
    void tearDown() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private String issuer() {
        return "issuer: { type: embedded-zookeeper, dataDir: \"" + data.resolve("zk") + "\" }\n";
    }

    @Test
    void aJdbcAndAPostgresStoreOnOneSchemaAreRefusedAtStartNamingBoth() {
        String yaml = issuer() + """
                stores:
                  a: { type: jdbc, url: "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=%s", user: postgres }
                  b: { type: postgres, host: 127.0.0.1, port: 5432, database: test, schema: %s, user: postgres }
                """.formatted(schema, schema);
        GatewayConfig config = ConfigLoader.parse(yaml, Map.of());
        assertThatThrownBy(() -> Backends.open(config, vertx).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("stores.b: store 'b' cannot use")
                .hasMessageContaining("it already belongs to store 'a'");
    }

    @Test
    void theSameStoreOnOneSchemaOpensAgainAsAScaleOutWould() throws Exception {
        String yaml = issuer() + """
                stores:
                  a: { type: postgres, host: 127.0.0.1, port: 5432, database: test, schema: %s, user: postgres }
                """.formatted(schema);
        GatewayConfig config = ConfigLoader.parse(yaml, Map.of());
        Backends.open(config, vertx).close();
        Backends.open(config, vertx).close();
    }

    @Test
    void aKeyLimitAboveAStoresLimitIsRefusedAtStartNamingTheKey() throws Exception {
        Path dir = Files.createDirectories(data.resolve("files"));
        String yaml = issuer() + """
                limits: { maxKeyBytes: 4096 }
                stores:
                  docs: { type: files, dir: "%s" }
                """.formatted(dir);
        GatewayConfig config = ConfigLoader.parse(yaml, Map.of());
        assertThatThrownBy(() -> Backends.open(config, vertx).close())
                .isInstanceOf(ConfigException.class)
                // What a files store takes depends on how long its root's path is (file names are capped).
                .hasMessageMatching("limits\\.maxKeyBytes: 4096 is more than store 'docs' takes \\(\\d+ bytes\\): lower it to at most \\d+");
        assertThat(dir).isDirectory();
    }
}
