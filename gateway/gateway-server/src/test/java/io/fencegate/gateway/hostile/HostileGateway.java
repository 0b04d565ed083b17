package io.fencegate.gateway.hostile;

import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.GatewayProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A gateway as users run it, for one hostile-tenant test: {@code fencegate serve --config} in a
 * JVM of its own, from the built classpath, with a small heap ({@link #HEAP_MB}), an embedded
 * ZooKeeper, an H2 store {@code main} (with a statement {@code touch}) and a files store
 * {@code files}. Two API keys, {@link #KEY_A} and {@link #KEY_B}, each scoped to its own prefixes
 * ({@code main/a/}, {@code files/a/}, {@code a/}; the same for b) on both stores, and
 * {@link #KEY_NO_ITEMS}, which may use both stores but no lock of either (a key scoped elsewhere).
 */
final class HostileGateway implements AutoCloseable {
    /** The gateway JVM's heap: small, so that what leaks or is over-allocated shows within seconds. */
    static final int HEAP_MB = 192;
    static final String KEY_A = "tenant-a-4f9c2e7b1d8a6035e2c9f4b7";
    static final String KEY_B = "tenant-b-8e1d5a3c7f0b9264d1a8e5c3";
    static final String KEY_NO_ITEMS = "tenant-n-3b7e9d1f5a2c8046b9d3f7a1";
    private static final Pattern HEAP_USED = Pattern.compile(
            "(?m)^jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*\\} ([0-9.eE+]+)$");

    final GatewayProcess process;
    final Path work;
    final URI uri;

    private HostileGateway(GatewayProcess process, Path work) {
        this.process = process;
        this.work = work;
        this.uri = process.uri();
    }

    /** {@code extraYaml}: sections a test adds (e.g. a {@code limits:} section); "" for none. */
    static HostileGateway start(String name, String extraYaml) throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), name);
        Files.createDirectories(work.resolve("files"));
        Path config = work.resolve("fencegate.yaml");
        Files.writeString(config, """
                server: { port: 0 }
                %s
                auth:
                  keys:
                    - { name: a, sha256: %s, stores: [main, files], lockPrefixes: ["main/a/", "files/a/", "a/"] }
                    - { name: b, sha256: %s, stores: [main, files], lockPrefixes: ["main/b/", "files/b/", "b/"] }
                    - { name: n, sha256: %s, stores: [main, files], lockPrefixes: ["elsewhere/"] }
                issuer: { type: embedded-zookeeper, dataDir: "%s" }
                stores:
                  main:
                    type: jdbc
                    url: "jdbc:h2:file:%s"
                    user: sa
                    password: ""
                    statements:
                      touch: "UPDATE fencegate_item SET token = token WHERE resource = :k"
                  files: { type: files, dir: "%s" }
                """.formatted(extraYaml, ApiKeyHasher.sha256Hex(KEY_A), ApiKeyHasher.sha256Hex(KEY_B),
                ApiKeyHasher.sha256Hex(KEY_NO_ITEMS),
                work.resolve("zookeeper"), work.resolve("h2").resolve("main"), work.resolve("files")));
        GatewayProcess process = GatewayProcess.java(work,
                List.of("-XX:TieredStopAtLevel=1", "-Xmx" + HEAP_MB + "m", "-Xss512k"),
                "serve", "--config", config.toString());
        try {
            process.awaitReady(90);
            return new HostileGateway(process, work);
        } catch (Exception | Error e) {
            process.close();
            deleteTree(work);
            throw e;
        }
    }

    boolean alive() {
        return process.child().alive();
    }

    /**
     * The heap in use right after a full collection: {@code jcmd GC.run}, then the sum of
     * {@code jvm_memory_used_bytes{area="heap"}} from {@code /metrics}.
     */
    long heapAfterGcBytes(HttpClient http) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        ChildProcess.run(10, List.of(jcmd, Long.toString(process.pid()), "GC.run"));
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(uri.resolve("/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (metrics.statusCode() != 200) {
            throw new AssertionError("/metrics answered " + metrics.statusCode() + ": " + metrics.body());
        }
        Matcher m = HEAP_USED.matcher(metrics.body());
        double sum = 0;
        while (m.find()) {
            sum += Double.parseDouble(m.group(1));
        }
        return (long) sum;
    }

    @Override
    public void close() throws Exception {
        try {
            process.close();
        } finally {
            deleteTree(work);
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted((x, y) -> y.getNameCount() - x.getNameCount()).forEach(p -> p.toFile().delete());
        }
    }
}
