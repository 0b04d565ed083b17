package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.testing.GatewayProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many large PUTs at once on a small heap, to a store that takes values whole (Postgres; a files
 * store takes them streamed, StreamedBodiesIT): a gateway process with {@code -Xmx256m} receives 16
 * PUTs of 16 MiB at the same time (256 MiB of bodies, each read whole into the heap). Every one is
 * applied and the gateway stays up, because large bodies wait for the heap's body budget instead
 * of all being read at once.
 */
class LargeBodiesIT {
    private static final int PUTS = 16;
    private static final int SIZE = 16 << 20;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void manyLargeBodiesAtOnceAreAllAppliedOnASmallHeap() throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "large-bodies");
        try (TestingServer zookeeper = new TestingServer(true);
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            Path config = work.resolve("fencegate.yaml");
            Files.writeString(config, """
                    server: { port: 0 }
                    issuer: { type: zookeeper, connectString: "%s" }
                    stores:
                      docs: { type: postgres, host: 127.0.0.1, port: 5432, database: test, schema: %s, user: postgres,
                              rule: same-lease, lock: bulk }
                    """.formatted(zookeeper.getConnectString(), db.name));
            try (GatewayProcess gateway = GatewayProcess.start(work, "serve", "--config", config.toString())) {
                URI uri = gateway.awaitReady(90).uri();
                FencegateClient client = FencegateClient.builder(uri).timeout(Duration.ofSeconds(60)).build();
                long token = client.acquire("bulk", Duration.ofMinutes(10), Duration.ZERO).orElseThrow().token();
                byte[] value = new byte[SIZE];
                ThreadLocalRandom.current().nextBytes(value);
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(10)).build();
                List<CompletableFuture<HttpResponse<String>>> puts = new ArrayList<>();
                for (int i = 0; i < PUTS; i++) {
                    puts.add(http.sendAsync(HttpRequest.newBuilder(uri.resolve("/v1/stores/docs/items/big/" + i))
                                    .timeout(Duration.ofMinutes(4)).header("Fencing-Token", Long.toString(token))
                                    .PUT(HttpRequest.BodyPublishers.ofByteArray(value)).build(),
                            HttpResponse.BodyHandlers.ofString()));
                }
                List<Integer> statuses = new ArrayList<>();
                for (CompletableFuture<HttpResponse<String>> put : puts) {
                    statuses.add(put.get(4, TimeUnit.MINUTES).statusCode());
                }
                assertThat(statuses).as("answers to %d PUTs of 16 MiB at once", PUTS).containsOnly(200);
                var last = http.send(HttpRequest.newBuilder(uri.resolve("/v1/stores/docs/items/big/" + (PUTS - 1)))
                        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
                assertThat(last.body()).as("a value read back").isEqualTo(value);
                var health = http.send(HttpRequest.newBuilder(uri.resolve("/health")).timeout(Duration.ofSeconds(20)).build(),
                        HttpResponse.BodyHandlers.discarding());
                assertThat(health.statusCode()).as("the gateway is still up").isEqualTo(200);
            }
        } finally {
            LeaseEventsIT.deleteTree(work);
        }
    }
}
