package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.FencegateException;
import io.fencegate.client.Lease;
import io.fencegate.client.LeaseMode;
import io.fencegate.client.ReadOutcome;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.GatewayConfig;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A read lease's token never writes, whichever issuer granted it: the gateway asks the issuer for the
 * token's mode, and an issuer that answered "write" for a read grant would let a reader write beside
 * other readers. {@link ReadLeasesAndPermitsIT} covers every write path on the SQL issuer; this runs
 * the one that matters on the embedded ZooKeeper (the default) and on Redis, after a fenced read has
 * put the grant in the gateway's cache.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadTokenOnEveryIssuerIT {
    private static final Duration TTL = Duration.ofSeconds(30);

    @ParameterizedTest
    @ValueSource(strings = {"embedded-zookeeper", "redis"})
    void aReadTokenIsRefusedOnWritesAndAWriterWaitsForTheReaders(String issuer, @TempDir Path data) throws Exception {
        String issuerYaml = issuer.equals("redis")
                ? "{ type: redis, uri: \"redis://127.0.0.1:6379\", keyPrefix: \"fg-readtoken-" + UUID.randomUUID()
                        + ":\", highWaterMarkFile: \"" + data.resolve("mark") + "\" }"
                : "{ type: embedded-zookeeper, dataDir: \"" + data.resolve("zk") + "\" }";
        java.nio.file.Files.createDirectories(data.resolve("files"));
        GatewayConfig config = ConfigLoader.parse("issuer: " + issuerYaml + "\nstores:\n  main: { type: files, dir: \""
                + data.resolve("files") + "\" }\n", Map.of());
        Vertx vertx = Vertx.vertx();
        try {
            Backends backends = Backends.open(config, vertx);
            try (GatewayHarness gw = new GatewayHarness(new GatewayOptions(), backends.issuer(), backends.stores(), List.of(backends))) {
                FencegateClient client = gw.client(null);
                String key = "reads/" + UUID.randomUUID();
                Lease writer = client.acquire("main/" + key, TTL, Duration.ZERO).orElseThrow();
                assertThat(client.put("main", key, writer.token(), bytes("before")).applied()).isTrue();
                client.release(writer.leaseId());

                Lease one = client.acquire("main/" + key, LeaseMode.READ, TTL, Duration.ZERO).orElseThrow();
                Lease two = client.acquire("main/" + key, LeaseMode.READ, TTL, Duration.ZERO).orElseThrow();
                assertThat(two.token()).isGreaterThan(one.token());
                assertThat(client.acquire("main/" + key, TTL, Duration.ofMillis(300))).as("a writer beside readers").isEmpty();
                assertThat(((ReadOutcome.Value) client.get("main", key, two.token())).bytes()).isEqualTo(bytes("before"));
                assertThatThrownBy(() -> client.put("main", key, two.token(), bytes("after")))
                        .isInstanceOfSatisfying(FencegateException.class, e -> assertThat(e.status()).isEqualTo(403));
                assertThatThrownBy(() -> client.delete("main", key, one.token()))
                        .isInstanceOfSatisfying(FencegateException.class, e -> assertThat(e.status()).isEqualTo(403));
                assertThat(((ReadOutcome.Value) client.get("main", key)).bytes()).as("nothing was written").isEqualTo(bytes("before"));
                client.release(one.leaseId());
                client.release(two.leaseId());
            }
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
