package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.client.Lease;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigException;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.GatewayConfig;
import io.vertx.core.Vertx;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An issuer type the gateway has no code for ({@link MemoryIssuerProvider}) is found through
 * {@link java.util.ServiceLoader}, configured by its {@code type} with its own keys, and grants
 * the leases whose tokens guard writes over HTTP like any other. Its registration sits in a folder
 * only this test's class loader sees, so every other test keeps the shipped list of types.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DiscoveredIssuerIT {
    private static final String SHIPPED = "zookeeper, redis, sql or embedded-zookeeper";
    private static final String WITH_TEST_TYPE = "zookeeper, redis, sql, embedded-zookeeper or test-memory";

    @TempDir
    Path data;

    private String config(String issuer) throws Exception {
        Path files = Files.createDirectories(data.resolve("files"));
        return "issuer: " + issuer + "\nstores:\n  docs: { type: files, dir: \"" + files + "\" }\n";
    }

    /** Runs {@code work} with the test issuer's registration on the thread's context class loader. */
    private static <T> T withTestIssuer(Callable<T> work) throws Exception {
        URL registration = DiscoveredIssuerIT.class.getResource("/discovered-issuer/");
        assertThat(registration).as("the test issuer's META-INF/services folder").isNotNull();
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {registration}, before)) {
            thread.setContextClassLoader(loader);
            return work.call();
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    @Test
    void anIssuerRegisteredOnTheClasspathGrantsTheTokensThatGuardWrites() throws Exception {
        GatewayConfig config = withTestIssuer(() -> ConfigLoader.parse(config("{ type: test-memory, firstToken: 1000 }"), Map.of()));
        Backends backends = withTestIssuer(() -> Backends.open(config, null));
        MemoryIssuerProvider.MemoryIssuer issuer;
        try (backends; GatewayHarness gw = new GatewayHarness(new GatewayOptions(), backends.issuer(), backends.stores(), List.of())) {
            assertThat(backends.issuer()).isInstanceOf(MemoryIssuerProvider.MemoryIssuer.class);
            issuer = (MemoryIssuerProvider.MemoryIssuer) backends.issuer();
            assertThat(backends.describe()).isEqualTo("issuer: in-memory (test); stores: docs");

            // Its key reached it: tokens start above firstToken.
            Lease first = gw.client().acquire("docs/readme", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
            assertThat(first.token()).isEqualTo(1001);
            assertThat(gw.client().acquire("docs/readme", Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
            HttpResponse<String> put = gw.send(gw.request("/v1/stores/docs/items/readme")
                    .header("Fencing-Token", "1001").PUT(HttpRequest.BodyPublishers.ofString("one")));
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            assertThat(gw.client().release(first.leaseId())).isTrue();

            Lease second = gw.client().acquire("docs/readme", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
            assertThat(second.token()).isEqualTo(1002);
            assertThat(gw.send(gw.request("/v1/stores/docs/items/readme").header("Fencing-Token", "1002")
                    .PUT(HttpRequest.BodyPublishers.ofString("two"))).statusCode()).isEqualTo(200);
            HttpResponse<String> stale = gw.send(gw.request("/v1/stores/docs/items/readme")
                    .header("Fencing-Token", "1001").PUT(HttpRequest.BodyPublishers.ofString("late")));
            assertThat(stale.statusCode()).isEqualTo(409);
            assertThat(stale.body()).contains("\"currentToken\":1002");
            // A token this issuer never granted is refused: the gateway asked it (wasGranted).
            assertThat(gw.send(gw.request("/v1/stores/docs/items/readme").header("Fencing-Token", "5000")
                    .PUT(HttpRequest.BodyPublishers.ofString("forged"))).statusCode()).isEqualTo(403);
            assertThat(gw.send(gw.request("/v1/stores/docs/items/readme").GET()).body()).isEqualTo("two");
            gw.assertEventLoopNeverBlocked();
        }
        assertThat(issuer.closed()).as("the gateway closes the issuer it opened").isTrue();
    }

    @Test
    void anUnknownIssuerTypeListsTheDiscoveredTypes() throws Exception {
        withTestIssuer(() -> {
            assertThatThrownBy(() -> ConfigLoader.parse(config("{ type: etcd }"), Map.of()))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("issuer.type: expected " + WITH_TEST_TYPE + ", got 'etcd'");
            assertThatThrownBy(() -> ConfigLoader.parse(config("{ type: test-memroy }"), Map.of()))
                    .hasMessage("issuer.type: expected " + WITH_TEST_TYPE + ", got 'test-memroy'; did you mean 'test-memory'?");
            assertThatThrownBy(() -> Backends.validate(ConfigLoader.parse(config("{}").replace("issuer: {}\n", ""), Map.of())))
                    .hasMessage("issuer.type: required: " + WITH_TEST_TYPE);
            return null;
        });
        // Without its registration the type is unknown, and the list is the shipped one.
        assertThatThrownBy(() -> ConfigLoader.parse(config("{ type: test-memory }"), Map.of()))
                .hasMessage("issuer.type: expected " + SHIPPED + ", got 'test-memory'");
    }

    @Test
    void aDiscoveredIssuerRefusesKeysItsSettingsDoNotHaveAndChecksItsOwn() throws Exception {
        withTestIssuer(() -> {
            assertThatThrownBy(() -> ConfigLoader.parse(config("{ type: test-memory, connectString: \"zk:2181\" }"), Map.of()))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("issuer.connectString: not a key of a test-memory issuer");
            assertThatThrownBy(() -> ConfigLoader.parse(config("{ type: test-memory }"),
                    Map.of("FENCEGATE_ISSUER_URI", "redis://127.0.0.1:6379")))
                    .hasMessageStartingWith("FENCEGATE_ISSUER_URI: names no config key");
            assertThat(ConfigLoader.parse(config("{ type: test-memory }"), Map.of("FENCEGATE_ISSUER_FIRSTTOKEN", "7")).issuer())
                    .isEqualTo(new MemoryIssuerProvider.MemoryIssuerSettings(7L));
            assertThatThrownBy(() -> ConfigLoader.parse(config("{ type: test-memory, firstToken: -1 }"), Map.of()))
                    .hasMessage("issuer.firstToken: must be 0 or more, got -1");
            return null;
        });
    }
}
