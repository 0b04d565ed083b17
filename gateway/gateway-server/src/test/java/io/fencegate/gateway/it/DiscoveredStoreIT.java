package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigException;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.GatewayConfig;
import io.vertx.core.Vertx;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store type the gateway has no code for ({@link MemoryStoreProvider}, registered only on the
 * test classpath) is found through {@link java.util.ServiceLoader}, configured by its
 * {@code type} with its own keys, and served over HTTP like any other. Embedded ZooKeeper.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DiscoveredStoreIT {
    @TempDir
    Path data;

    private String config(String store) {
        return "issuer: { type: embedded-zookeeper, dataDir: \"" + data.resolve("zk") + "\" }\n"
                + "stores:\n  mem: " + store + "\n";
    }

    @Test
    void aBackendRegisteredOnTheClasspathIsServedByItsType() throws Exception {
        GatewayConfig config = ConfigLoader.parse(config("{ type: test-memory, maxKeyBytes: 100 }"), Map.of());
        Vertx vertx = Vertx.vertx();
        try (Backends backends = Backends.open(config, vertx);
                GatewayHarness gw = new GatewayHarness(new GatewayOptions(), backends.issuer(), backends.stores(), List.of())) {
            assertThat(backends.stores().get(0).store()).isInstanceOf(MemoryStoreProvider.MemoryStore.class);
            assertThat(backends.stores().get(0).store().limits().maxKeyBytes()).isEqualTo(100);
            long older = gw.grantedToken("mem/stock/widget");
            long newer = gw.grantedToken("mem/stock/widget");

            HttpResponse<String> put = gw.send(gw.request("/v1/stores/mem/items/stock/widget")
                    .header("Fencing-Token", Long.toString(newer)).PUT(HttpRequest.BodyPublishers.ofString("1")));
            assertThat(put.statusCode()).isEqualTo(200);
            assertThat(gw.send(gw.request("/v1/stores/mem/items/stock/widget").GET()).body()).isEqualTo("1");
            HttpResponse<String> stale = gw.send(gw.request("/v1/stores/mem/items/stock/widget")
                    .header("Fencing-Token", Long.toString(older)).PUT(HttpRequest.BodyPublishers.ofString("0")));
            assertThat(stale.statusCode()).isEqualTo(409);
            assertThat(stale.body()).contains("\"currentToken\":" + newer);
            gw.assertEventLoopNeverBlocked();
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aDiscoveredBackendRefusesKeysItsSettingsDoNotHave() {
        assertThatThrownBy(() -> ConfigLoader.parse(config("{ type: test-memory, dir: /srv/mem }"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("stores.mem.dir: not a key of a test-memory store");
        assertThatThrownBy(() -> ConfigLoader.parse(config("{ type: test-memory }"),
                Map.of("FENCEGATE_STORES_MEM_URL", "jdbc:h2:mem:x")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("FENCEGATE_STORES_MEM_URL: names no config key");
        assertThat(ConfigLoader.parse(config("{ type: test-memory }"), Map.of("FENCEGATE_STORES_MEM_MAXKEYBYTES", "64"))
                .stores().get("mem")).isEqualTo(new MemoryStoreProvider.MemorySettings(64, null, null));
    }
}
