package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.FencegateException;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.WriteOutcome;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.files.FilesGuardedStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The client's two transports against a real gateway: the default (Apache HttpClient 5) and a JDK
 * HttpClient given to the builder read every answer of a fenced read-modify-write alike, and both
 * survive the gateway closing their idle kept-alive connections.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ClientTransportsIT {
    /**
     * The gateway closes connections idle for twice its request timeout: 6 s here. (1 s made a loaded
     * machine's acquire answer 503: the request timeout bounds the issuer's work too.)
     */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);

    enum Transport {
        DEFAULT(b -> b),
        JDK(b -> b.httpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()));

        final Function<FencegateClient.Builder, FencegateClient.Builder> configure;

        Transport(Function<FencegateClient.Builder, FencegateClient.Builder> configure) {
            this.configure = configure;
        }
    }

    private static Path dir;
    private static TestingServer zookeeper;
    private static GatewayHarness gw;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "transports-it");
        zookeeper = new TestingServer(true);
        var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                .operationTimeout(Duration.ofSeconds(5)).build();
        var store = FilesGuardedStore.open(Files.createDirectory(dir.resolve("items")), GuardRule.STRICT);
        gw = new GatewayHarness(new GatewayOptions().requestTimeout(REQUEST_TIMEOUT), issuer,
                List.of(StoreBinding.of("docs", store)), List.of(issuer, store));
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            gw.close();
            zookeeper.close();
        } finally {
            try (var all = Files.walk(dir)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static FencegateClient client(Transport transport) {
        return transport.configure.apply(FencegateClient.builder(URI.create("http://127.0.0.1:" + gw.gateway.port())))
                .timeout(Duration.ofSeconds(20)).build();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aFencedReadModifyWriteReadsTheSameOnEitherTransport(Transport transport) throws Exception {
        FencegateClient client = client(transport);
        String key = "rmw-" + transport;
        String lock = "docs/" + key;
        Lease first = client.acquire(lock, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(client.acquire(lock, Duration.ofSeconds(30), Duration.ZERO)).as("held: 423").isEmpty();
        assertThat(client.get("docs", key, first.token())).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(client.putAsync("docs", key, first.token(), bytes("v1")).get(20, TimeUnit.SECONDS))
                .isEqualTo(new WriteOutcome.Applied(first.token(), 0));
        assertThat(client.put("docs", key, first.token(), bytes("v1")))
                .as("the same write again under strict: recognisably already applied")
                .isInstanceOfSatisfying(Stale.class, st -> assertThat(st.alreadyApplied()).isTrue());
        assertThat(client.release(first.leaseId())).isTrue();
        assertThat(client.release(first.leaseId())).as("gone: 410").isFalse();

        Lease second = client.acquire(lock, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(client.get("docs", key, second.token())).isInstanceOfSatisfying(ReadOutcome.Value.class, v -> {
            assertThat(v.bytes()).asString().isEqualTo("v1");
            assertThat(v.token()).isEqualTo(first.token());
        });
        assertThat(client.put("docs", key, first.token(), bytes("late")))
                .as("the older holder is fenced out by the newer one's read")
                .isEqualTo(new Stale(first.token(), second.token(), first.token()));
        assertThatThrownBy(() -> client.put("nope", key, second.token(), bytes("x")))
                .isInstanceOfSatisfying(FencegateException.class, e -> assertThat(e.status()).isEqualTo(404));
        assertThat(client.renew(second.leaseId())).isPresent();
        assertThat(client.release(second.leaseId())).isTrue();
    }

    /**
     * A kept-alive connection the gateway closed while it sat idle in the pool is not reused for the
     * next call: that call succeeds (a write is never resent by the client, so it must not go out on
     * a dead connection).
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aCallAfterTheGatewayClosedAnIdleConnectionSucceeds(Transport transport) throws Exception {
        FencegateClient client = client(transport);
        String key = "idle-" + transport;
        Lease lease = client.acquire("docs/" + key, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(client.put("docs", key, lease.token(), bytes("a")).applied()).isTrue();
        Thread.sleep(REQUEST_TIMEOUT.multipliedBy(2).plusMillis(1500).toMillis()); // past the gateway's idle timeout
        assertThat(client.put("docs", key, lease.token(), bytes("a"))).as("answered, on a live connection")
                .isInstanceOfSatisfying(Stale.class, st -> assertThat(st.alreadyApplied()).isTrue());
        assertThat(client.release(lease.leaseId())).isTrue();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
