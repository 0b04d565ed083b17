package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

    private static List<String> configFiles(Path dir) throws Exception {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("zookeeper.configuration")).toList();
        }
    }

    @Test
    void restartsOnOneZooKeeperDirectoryLeaveNoConfigurationFiles() throws Exception {
        Backends.open(config("zk", "one"), vertx).close();
        Backends.open(config("zk", "one"), vertx).close();
        assertThat(configFiles(data.resolve("zk"))).isEmpty();
        // One left by a process killed between ZooKeeper writing it and the gateway deleting it goes too.
        Files.writeString(data.resolve("zk").resolve("zookeeper.configuration123.properties"), "clientPort=1\n");
        Backends.open(config("zk", "one"), vertx).close();
        assertThat(configFiles(data.resolve("zk"))).isEmpty();
    }

    @Test
    void aStartRefusedForItsConfigCreatesNoDataDirectory() {
        assertThatThrownBy(() -> Backends.open(ConfigLoader.parse("""
                issuer: { type: embedded-zookeeper, dataDir: "%s" }
                stores:
                  main: { type: jdbc, url: "jdbc:h2:file:%s", user: sa, rule: lenient }
                """.formatted(data.resolve("zk"), data.resolve("db")), Map.of()), vertx).close())
                .hasMessageStartingWith("stores.main.rule:");
        assertThat(data.resolve("zk")).doesNotExist();
    }

    /**
     * A start that fails after its claims (here: an unreachable store, opened after the issuer)
     * leaves issuer.dataDir behind, by decision: the claim made the directory to hold its lock
     * file, and a lock file is never deleted (LocalClaims: a process that opened it before the
     * delete would lock a file nobody else sees). What stays is the lock file and the embedded
     * ZooKeeper's own data, and the next start on the directory uses both as they are.
     */
    @Test
    void aStartThatFailsAfterItsClaimLeavesOnlyTheLockAndZooKeeperDataWhichTheNextStartReuses() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        assertThatThrownBy(() -> Backends.open(ConfigLoader.parse("""
                issuer: { type: embedded-zookeeper, dataDir: "%s" }
                stores:
                  main: { type: jdbc, url: "jdbc:postgresql://127.0.0.1:%d/test", user: postgres }
                """.formatted(data.resolve("zk"), closedPort), Map.of()), vertx).close())
                .hasMessageStartingWith("stores.main.url: cannot reach the database at");
        try (var left = Files.list(data.resolve("zk"))) {
            assertThat(left.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder(LocalClaims.LOCK_NAME, "data");
        }
        try (Backends next = Backends.open(config("zk", "one"), vertx)) {
            assertThat(next.describe()).contains("embedded ZooKeeper");
        }
    }
}
