package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.testing.GatewayProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    /**
     * SIGTERM with lease watches open, over HTTP/1.1 (as curl asks) and HTTP/2 (the JDK client
     * upgrades): each watcher gets a last {@code stopping} event and its stream ends properly, not
     * cut at the end of the drain (curl exit 18, "transfer closed with outstanding read data").
     */
    @Test
    void sigtermEndsOpenLeaseWatchesWithAStoppingEventAndACleanEnd() throws Exception {
        try (GatewayProcess gw = GatewayProcess.start(work, "serve", "--port", "0", "--data", "data").awaitReady(90)) {
            FencegateClient client = FencegateClient.builder(gw.uri()).timeout(Duration.ofSeconds(10)).build();
            Lease lease = client.acquire("main/watched", Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
            java.io.InputStream http1 = openWatch(gw, lease, java.net.http.HttpClient.Version.HTTP_1_1);
            java.io.InputStream http2 = openWatch(gw, lease, java.net.http.HttpClient.Version.HTTP_2);
            long signalled = System.nanoTime();
            gw.terminate(); // SIGTERM
            for (java.io.InputStream body : List.of(http1, http2)) {
                // readAllBytes throws if the stream is cut rather than ended.
                String rest = new String(body.readAllBytes(), StandardCharsets.UTF_8);
                assertThat(rest).startsWith("event: stopping\ndata: {")
                        .contains("\"message\":\"gateway stopping; reconnect elsewhere\"")
                        .contains("\"leaseId\":\"" + lease.leaseId() + "\"");
            }
            // Told at the start of the drain, not at its end.
            assertThat(Duration.ofNanos(System.nanoTime() - signalled)).isLessThan(Duration.ofSeconds(5));
            assertThat(gw.exit(60)).as(gw.output()).isEqualTo(143);
        }
    }

    /** A watch of {@code lease}, read up to its opening comment: the stream is open. */
    private static java.io.InputStream openWatch(GatewayProcess gw, Lease lease, java.net.http.HttpClient.Version version)
            throws Exception {
        java.net.http.HttpResponse<java.io.InputStream> watch = java.net.http.HttpClient.newBuilder().version(version).build()
                .send(java.net.http.HttpRequest.newBuilder(gw.uri().resolve("/v1/leases/" + lease.leaseId() + "/events")).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofInputStream());
        assertThat(watch.statusCode()).isEqualTo(200);
        java.io.InputStream body = watch.body();
        java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
        while (!seen.toString(StandardCharsets.UTF_8).endsWith("\n\n")) {
            int b = body.read();
            assertThat(b).as("stream open").isNotNegative();
            seen.write(b);
        }
        assertThat(seen.toString(StandardCharsets.UTF_8)).startsWith(": watching");
        return body;
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
