package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Exclusive local state is claimed before anything opens: two gateways in one process on one
 * embedded ZooKeeper directory, one H2 file or one data directory are refused, naming the key and
 * the path, and the refused one has started nothing (its own ZooKeeper directory is never made).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BackendsLocalStateIT {
    private Path data;
    private Vertx vertx;

    @BeforeEach
    void setUp() throws Exception {
        Path base = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        data = Files.createTempDirectory(base, "local");
        vertx = Vertx.vertx();
    }

    @AfterEach
    void tearDown() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    private GatewayConfig config(String zookeeper, String h2) {
        return ConfigLoader.parse("""
                issuer: { type: embedded-zookeeper, dataDir: "%s" }
                stores:
                  main: { type: jdbc, url: "jdbc:h2:file:%s", user: sa }
                """.formatted(data.resolve(zookeeper), data.resolve(h2)), Map.of());
    }

    @Test
    void aSecondGatewayInThisProcessOnOneZooKeeperDirectoryIsRefusedNamingTheKey() throws Exception {
        try (Backends first = Backends.open(config("zk", "one"), vertx)) {
            assertThatThrownBy(() -> Backends.open(config("zk", "two"), vertx).close())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("issuer.dataDir: ZooKeeper data directory " + data.resolve("zk").toRealPath()
                            + " is in use by another fencegate (pid " + ProcessHandle.current().pid());
            assertThat(data.resolve("two.mv.db")).doesNotExist();
        }
        Backends.open(config("zk", "two"), vertx).close(); // released with the first
    }

    @Test
    void anH2DatabaseInUseIsRefusedBeforeTheIssuerStarts() throws Exception {
        try (Backends first = Backends.open(config("zk1", "db"), vertx)) {
            assertThatThrownBy(() -> Backends.open(config("zk2", "db"), vertx).close())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("stores.main.url: H2 database " + data.toRealPath().resolve("db")
                            + " is in use by another fencegate");
            assertThat(data.resolve("zk2")).doesNotExist();
        }
    }

    @Test
    void theEmbeddedDefaultClaimsItsWholeDataDirectory() throws Exception {
        Path dir = data.resolve("data");
        try (Backends first = Backends.open(Defaults.embedded(dir), vertx)) {
            assertThat(dir.resolve("files")).isDirectory();
            assertThatThrownBy(() -> Backends.open(Defaults.embedded(dir), vertx).close())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("data directory " + dir.toRealPath() + " is in use by another fencegate");
            // A config pointing an embedded ZooKeeper into the default's data directory meets the same claim.
            assertThatThrownBy(() -> Backends.open(ConfigLoader.parse("""
                    issuer: { type: embedded-zookeeper, dataDir: "%s" }
                    stores:
                      other: { type: jdbc, url: "jdbc:h2:file:%s", user: sa }
                    """.formatted(dir.resolve("zookeeper"), data.resolve("other")), Map.of()), vertx).close())
                    .hasMessageStartingWith("issuer.dataDir: ZooKeeper data directory " + dir.toRealPath().resolve("zookeeper"));
        }
    }
}
