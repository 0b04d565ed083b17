package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A backend that nothing answers for fails the start with a message that names the config key and
 * the address as written, not a driver's internal rendering of it ({@code 127.0.0.1/<unresolved>}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnreachableBackendIT {
    private Path data;
    private Vertx vertx;
    private int closedPort;

    @BeforeEach
    void setUp() throws Exception {
        data = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"))), "unreachable");
        Files.createDirectories(data.resolve("files"));
        vertx = Vertx.vertx();
        // A port that was just free on loopback: nothing listens there.
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    private static final String FILES_STORE = "stores:\n  docs: { type: files, dir: \"%s\" }\n";

    private void assertStartRefused(String yaml, String message) {
        GatewayConfig config = ConfigLoader.parse(yaml, Map.of());
        assertThatThrownBy(() -> Backends.open(config, vertx).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(message)
                .hasMessageNotContaining("<unresolved>");
    }

    @Test
    void anUnreachableRedisNamesIssuerUriAndTheAddress() {
        assertStartRefused("issuer: { type: redis, uri: \"redis://127.0.0.1:" + closedPort + "\", highWaterMarkFile: \""
                        + data.resolve("mark") + "\" }\n" + FILES_STORE.formatted(data.resolve("files")),
                "issuer.uri: cannot reach Redis at 127.0.0.1:" + closedPort + " (connection refused)");
    }

    @Test
    void anUnreachableZooKeeperNamesIssuerConnectStringAndTheAddress() {
        assertStartRefused("issuer: { type: zookeeper, connectString: \"127.0.0.1:" + closedPort + "\", sessionTimeout: 2s }\n"
                        + FILES_STORE.formatted(data.resolve("files")),
                "issuer.connectString: cannot reach ZooKeeper at 127.0.0.1:" + closedPort + " (connection refused)");
    }

    @Test
    void anUnreachableJdbcDatabaseNamesItsStoreUrl() {
        assertStartRefused("issuer: { type: embedded-zookeeper, dataDir: \"" + data.resolve("zk") + "\" }\n"
                        + "stores:\n  orders: { type: jdbc, url: \"jdbc:postgresql://127.0.0.1:" + closedPort + "/test\", user: postgres }\n",
                "stores.orders.url: cannot reach the database at jdbc:postgresql://127.0.0.1:" + closedPort + "/test (connection refused)");
    }

    @Test
    void anUnreachablePostgresNamesItsStoreHostAndPort() {
        assertStartRefused("issuer: { type: embedded-zookeeper, dataDir: \"" + data.resolve("zk") + "\" }\n"
                        + "stores:\n  ledger: { type: postgres, host: 127.0.0.1, port: " + closedPort + ", database: test, user: postgres }\n",
                "stores.ledger.host: cannot reach Postgres at 127.0.0.1:" + closedPort + " (connection refused); check host and port");
    }
}
