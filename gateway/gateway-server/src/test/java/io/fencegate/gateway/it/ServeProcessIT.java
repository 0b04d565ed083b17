package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code fencegate serve} as a process: the embedded default serves both stores, SIGTERM drains and
 * exits cleanly, data and token order survive a restart, and a bad start exits non-zero with the
 * key named.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServeProcessIT {
    private Path work;

    @BeforeEach
    void workDir() throws Exception {
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "serve");
    }

    @AfterEach
    void cleanUp() throws Exception {
        try (var all = Files.walk(work)) {
            all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void theEmbeddedDefaultServesSurvivesRestartAndStopsOnSigterm() throws Exception {
        long firstToken;
        try (GatewayProcess gw = GatewayProcess.start(work, "serve", "--port", "0", "--data", "data").awaitReady(90)) {
            FencegateClient client = FencegateClient.builder(gw.uri()).timeout(Duration.ofSeconds(10)).build();
            for (String store : new String[] {"main", "files"}) {
                Lease lease = client.acquire(store + "/docs/readme.txt", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
                assertThat(client.get(store, "docs/readme.txt", lease.token())).isInstanceOf(ReadOutcome.NotFound.class);
                assertThat(client.put(store, "docs/readme.txt", lease.token(), "hello".getBytes(StandardCharsets.UTF_8))
                        .applied()).isTrue();
                assertThat(client.release(lease.leaseId())).isTrue();
            }
            firstToken = client.acquire("main/docs/readme.txt", Duration.ofSeconds(5), Duration.ZERO).orElseThrow().token();
            assertThat(Files.isDirectory(work.resolve("data/zookeeper"))).isTrue();
            assertThat(Files.isDirectory(work.resolve("data/files"))).isTrue();

            // A request in flight when SIGTERM arrives still gets its answer: the lock stays held,
            // so the waiting acquire ends with 423 after its 3 s, during the drain.
            var inFlight = client.acquireAsync("main/docs/readme.txt", Duration.ofSeconds(5), Duration.ofSeconds(3));
            Thread.sleep(500);
            gw.terminate(); // SIGTERM
            assertThat(inFlight.get(30, TimeUnit.SECONDS)).isEmpty();
            assertThat(gw.exit(60)).as(gw.output()).isEqualTo(143);
            assertThat(gw.output()).contains("fencegate stopping").contains("fencegate stopped");
        }
        // Same data directory: items are still there and tokens keep growing.
        try (GatewayProcess gw = GatewayProcess.start(work, "serve", "--port", "0", "--data", "data").awaitReady(90)) {
            FencegateClient client = FencegateClient.builder(gw.uri()).timeout(Duration.ofSeconds(10)).build();
            for (String store : new String[] {"main", "files"}) {
                assertThat(((ReadOutcome.Value) client.get(store, "docs/readme.txt")).bytes())
                        .isEqualTo("hello".getBytes(StandardCharsets.UTF_8));
            }
            Lease after = client.acquire("main/docs/readme.txt", Duration.ofSeconds(60), Duration.ofSeconds(30)).orElseThrow();
            assertThat(after.token()).isGreaterThan(firstToken);
        }
    }

    @Test
    void anInvalidConfigStopsStartUpNamingTheKey() throws Exception {
        Path config = work.resolve("fencegate.yaml");
        Files.writeString(config, """
                issuer: { type: zookeeper, connectString: "127.0.0.1:1" }
                stores:
                  orders: { type: jdbc, url: "jdbc:h2:mem:x", rule: lenient }
                """);
        try (GatewayProcess gw = GatewayProcess.start(work, "serve", "--config", config.toString())) {
            assertThat(gw.exit(60)).isEqualTo(2);
            assertThat(gw.output()).contains("stores.orders.rule: expected strict or same-lease, got 'lenient'");
        }
    }

    @Test
    void aPortInUseStopsStartUpBeforeAnyBackendOpensNamingTheAddressAndKey() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
                GatewayProcess gw = GatewayProcess.start(work, "serve", "--port", String.valueOf(taken.getLocalPort()),
                        "--data", "data")) {
            assertThat(gw.exit(60)).isEqualTo(2);
            assertThat(gw.output()).contains("fencegate: cannot start: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + ": the port is already in use (is another gateway running?); choose another with --port");
            // Failed before the embedded ZooKeeper, H2 or files store touched the data directory.
            assertThat(work.resolve("data")).doesNotExist();
        }
    }

    @Test
    void aNonLoopbackAddressWithoutAuthRefusesToStart() throws Exception {
        try (GatewayProcess gw = GatewayProcess.start(work, "serve", "--port", "0", "--host", "0.0.0.0", "--data", "data")) {
            assertThat(gw.exit(60)).isEqualTo(2);
            assertThat(gw.output()).contains("server.host").contains("auth");
        }
    }
}
