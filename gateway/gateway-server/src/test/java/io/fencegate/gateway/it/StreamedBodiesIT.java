package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.WriteOutcome;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.store.files.FilesStoreOptions;
import io.fencegate.testing.GatewayProcess;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Large bodies streamed into a files store: a gateway with a 64 MiB heap, which cannot hold even
 * one 16 MiB body the way a byte array is written (the body, its copy, the item file's bytes),
 * applies 16 PUTs of 16 MiB sent at once. A client that goes away mid-body, a stale token and a
 * body that grows past the limit leave the item as it was and no temporary file behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StreamedBodiesIT {
    private static final int SIZE = 16 << 20;
    private static final long LIMIT = 17L << 20;

    private Path work;
    private Path docs;
    private TestingServer zookeeper;
    private GatewayProcess gateway;
    private URI uri;
    private FencegateClient client;
    private HttpClient http;

    @BeforeAll
    void start() throws Exception {
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "streamed-bodies");
        docs = Files.createDirectories(work.resolve("docs"));
        zookeeper = new TestingServer(true);
        Path config = work.resolve("fencegate.yaml");
        Files.writeString(config, """
                server: { port: 0 }
                limits: { maxBodyBytes: %d }
                issuer: { type: zookeeper, connectString: "%s" }
                stores:
                  docs: { type: files, dir: "%s", rule: same-lease, lock: bulk }
                """.formatted(LIMIT, zookeeper.getConnectString(), docs));
        gateway = GatewayProcess.java(work, List.of("-XX:TieredStopAtLevel=1", "-Xmx64m"),
                "serve", "--config", config.toString());
        uri = gateway.awaitReady(90).uri();
        client = FencegateClient.builder(uri).timeout(Duration.ofSeconds(60)).build();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @AfterAll
    void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
        LeaseEventsIT.deleteTree(work);
    }

    @Test
    void manyLargeBodiesAtOnceAreAllAppliedOnAHeapSmallerThanOneBodysCopies() throws Exception {
        long token = lease();
        byte[] value = random(SIZE);
        List<CompletableFuture<HttpResponse<String>>> puts = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            puts.add(http.sendAsync(put("big/" + i, token, HttpRequest.BodyPublishers.ofByteArray(value)),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> put : puts) {
            statuses.add(put.get(4, TimeUnit.MINUTES).statusCode());
        }
        assertThat(statuses).as("answers to 16 PUTs of 16 MiB at once").containsOnly(200);
        assertThat(health()).as("the gateway is still up").isEqualTo(200);
        try (FilesGuardedStore store = FilesGuardedStore.open(new FilesStoreOptions().root(docs).name("docs")
                .rule(GuardRule.SAME_LEASE))) {
            Found found = (Found) store.read("big/15").toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertThat(found.value()).as("a value read back").isEqualTo(value);
        }
        assertThat(temporaries()).isEmpty();
    }

    @Test
    void aClientThatGoesAwayMidBodyChangesNothingAndLeavesNoTemporary() throws Exception {
        long token = lease();
        assertThat(client.put("docs", "cut", token, bytes("before"))).isInstanceOf(WriteOutcome.Applied.class);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("PUT /v1/stores/docs/items/cut HTTP/1.1\r\nHost: x\r\nFencing-Token: " + token
                    + "\r\nContent-Length: " + SIZE + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] part = random(1 << 20);
            for (int i = 0; i < 3; i++) {
                out.write(part);
            }
            out.flush();
            awaitTemporaries(1); // the body is on its way into the store
        } // closed, 13 MiB short
        awaitTemporaries(0);
        assertThat(value("cut")).isEqualTo(bytes("before"));
        assertThat(health()).isEqualTo(200);
    }

    @Test
    void aStaleTokenStreamedIsRefusedAtCommitAndLeavesNothing() throws Exception {
        long older = lease();
        long newer = lease();
        assertThat(client.put("docs", "stale", newer, bytes("newer"))).isInstanceOf(WriteOutcome.Applied.class);
        HttpResponse<String> refused = http.send(put("stale", older, HttpRequest.BodyPublishers.ofByteArray(random(2 << 20))),
                HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.body()).contains("\"currentToken\":" + newer);
        assertThat(value("stale")).isEqualTo(bytes("newer"));
        assertThat(temporaries()).isEmpty();
    }

    @Test
    void aChunkedBodyPastTheLimitIsRefusedAndChangesNothing() throws Exception {
        long token = lease();
        assertThat(client.put("docs", "limit", token, bytes("before"))).isInstanceOf(WriteOutcome.Applied.class);
        byte[] tooBig = random((int) LIMIT + 1);
        // A publisher without a known length: sent chunked, so only counting finds it too large.
        HttpRequest.BodyPublisher chunked = HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(tooBig));
        HttpResponse<String> refused;
        try {
            refused = http.send(put("limit", token, chunked), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(413);
        } catch (java.io.IOException closedWhileSending) {
            // the gateway answered 413 and closed the connection before the client finished sending
        }
        HttpResponse<String> declared = http.send(put("limit", token, HttpRequest.BodyPublishers.ofByteArray(tooBig)),
                HttpResponse.BodyHandlers.ofString());
        assertThat(declared.statusCode()).isEqualTo(413);
        assertThat(value("limit")).isEqualTo(bytes("before"));
        awaitTemporaries(0);
    }

    /** curl sends large bodies with Expect: 100-continue and waits for the answer before sending. */
    @Test
    void aClientThatWaitsForContinueIsInvitedOnlyOnceTheChecksHavePassed() throws Exception {
        long token = lease();
        for (int size : new int[] {1000, 2 << 20}) { // read whole, and streamed
            try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
                socket.setSoTimeout(30_000);
                OutputStream out = socket.getOutputStream();
                out.write(head("continue", token + 1_000_000, size).getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(statusLine(socket)).as("a token nobody was granted, %d bytes", size).contains(" 403 ");
            }
            try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
                socket.setSoTimeout(30_000);
                OutputStream out = socket.getOutputStream();
                out.write(head("continue", token, size).getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(statusLine(socket)).as("%d bytes", size).contains(" 100 ");
                out.write(random(size));
                out.flush();
                String answer = statusLine(socket);
                while (answer.isEmpty()) {
                    answer = statusLine(socket);
                }
                assertThat(answer).contains(" 200 ");
            }
        }
    }

    private static String head(String key, long token, int length) {
        return "PUT /v1/stores/docs/items/" + key + " HTTP/1.1\r\nHost: x\r\nFencing-Token: " + token
                + "\r\nContent-Length: " + length + "\r\nExpect: 100-continue\r\n\r\n";
    }

    /** The next line the gateway sends: a status line, or the end of a header block (empty). */
    private static String statusLine(Socket socket) throws java.io.IOException {
        java.io.InputStream in = socket.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            line.append((char) c);
        }
        String read = line.toString().strip();
        if (read.startsWith("HTTP/")) {
            // skip the rest of this answer's head
            for (String header = ""; ; ) {
                StringBuilder h = new StringBuilder();
                for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                    h.append((char) c);
                }
                header = h.toString().strip();
                if (header.isEmpty()) {
                    break;
                }
            }
        }
        return read;
    }

    private String leaseId;

    /** A new lease on the store's lock, the previous one released: tokens rise. */
    private long lease() throws Exception {
        if (leaseId != null) {
            client.release(leaseId);
        }
        var lease = client.acquire("bulk", Duration.ofMinutes(10), Duration.ofSeconds(60)).orElseThrow();
        leaseId = lease.leaseId();
        return lease.token();
    }

    private byte[] value(String key) {
        return ((ReadOutcome.Value) client.get("docs", key)).bytes();
    }

    private HttpRequest put(String key, long token, HttpRequest.BodyPublisher body) {
        return HttpRequest.newBuilder(uri.resolve("/v1/stores/docs/items/" + key)).timeout(Duration.ofMinutes(4))
                .header("Fencing-Token", Long.toString(token)).PUT(body).build();
    }

    private int health() throws Exception {
        return http.send(HttpRequest.newBuilder(uri.resolve("/health")).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The store's temporary files now; one that is renamed or deleted during the walk is not one. */
    private List<Path> temporaries() throws Exception {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(docs, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attributes) {
                if (file.getFileName().toString().startsWith(".fg-tmp-")) {
                    found.add(file);
                }
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path file, java.io.IOException gone) {
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        return found;
    }

    /** Waits (bounded) until {@code count} temporary files are in the store's directory. */
    private void awaitTemporaries(int count) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (temporaries().size() != count) {
            assertThat(System.nanoTime()).as("temporaries still %s", temporaries()).isLessThan(until);
            Thread.sleep(20);
        }
    }

    private static byte[] random(int size) {
        byte[] b = new byte[size];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
