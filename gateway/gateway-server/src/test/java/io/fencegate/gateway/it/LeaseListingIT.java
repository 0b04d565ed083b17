package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code GET /v1/leases}: the live leases of every gateway, read from the issuer through either
 * gateway, paged, with the gateway that granted each, and scoped by the API key's lockPrefixes.
 */
class LeaseListingIT {
    private static final String ADMIN_KEY = ApiKeyHasher.newKey();
    private static final String ORDERS_KEY = ApiKeyHasher.newKey();
    private static final GatewayOptions OPTIONS = new GatewayOptions().auth(new AuthConfig(List.of(
            new ApiKey("admin", ApiKeyHasher.sha256Hex(ADMIN_KEY), List.of("*"), List.of("*")),
            new ApiKey("orders", ApiKeyHasher.sha256Hex(ORDERS_KEY), List.of("*"), List.of("orders/")))));

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyGatewaysLeasesAreListedThroughAnyGatewayPagedAndScopedByTheKey() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            LeaseIssuer issuerA = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                    .instanceName("gateway-a").build();
            LeaseIssuer issuerB = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                    .instanceName("gateway-b").build();
            try (GatewayHarness a = new GatewayHarness(OPTIONS, issuerA, List.of(), List.of(issuerA));
                    GatewayHarness b = new GatewayHarness(OPTIONS, issuerB, List.of(), List.of(issuerB))) {
                FencegateClient viaA = a.client(ADMIN_KEY);
                FencegateClient viaB = b.client(ADMIN_KEY);
                long t1 = viaA.acquire("orders/1", Duration.ofSeconds(30), Duration.ZERO).orElseThrow().token();
                viaA.acquire("orders/2", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
                long t3 = viaB.acquire("orders/3", Duration.ofSeconds(30), Duration.ZERO).orElseThrow().token();
                viaB.acquire("docs/1", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();

                List<JsonObject> seen = new ArrayList<>();
                String cursor = null;
                do {
                    JsonObject page = get(b, "/v1/leases?prefix=orders/&limit=2" + (cursor == null ? "" : "&cursor=" + cursor),
                            ADMIN_KEY, 200);
                    JsonArray leases = page.getJsonArray("leases");
                    assertThat(leases.size()).isLessThanOrEqualTo(2);
                    leases.forEach(l -> seen.add((JsonObject) l));
                    cursor = page.getString("next");
                } while (cursor != null);
                assertThat(seen).extracting(l -> l.getString("lock")).containsExactly("orders/1", "orders/2", "orders/3");
                assertThat(seen.get(0).getLong("token")).isEqualTo(t1);
                assertThat(seen.get(0).getString("grantedBy")).isEqualTo("gateway-a");
                assertThat(seen.get(2).getLong("token")).isEqualTo(t3);
                assertThat(seen.get(2).getString("grantedBy")).isEqualTo("gateway-b");
                assertThat(seen.get(0).getLong("expiresAt")).isGreaterThan(System.currentTimeMillis());

                // The orders key sees only its locks: no prefix narrows to "orders/", "docs/" is refused.
                JsonObject scoped = get(a, "/v1/leases", ORDERS_KEY, 200);
                assertThat(scoped.getString("prefix")).isEqualTo("orders/");
                assertThat(scoped.getJsonArray("leases").stream().map(l -> ((JsonObject) l).getString("lock")).toList())
                        .containsExactly("orders/1", "orders/2", "orders/3");
                get(a, "/v1/leases?prefix=docs/", ORDERS_KEY, 403);
                assertThat(get(a, "/v1/leases", ADMIN_KEY, 200).getJsonArray("leases").size()).isEqualTo(4);

                get(a, "/v1/leases?limit=0", ADMIN_KEY, 400);
                get(a, "/v1/leases?limit=1001", ADMIN_KEY, 400);
                get(a, "/v1/leases?limit=ten", ADMIN_KEY, 400);
                get(a, "/v1/leases?cursor=forged", ADMIN_KEY, 400);
                assertThat(a.send(a.request("/v1/leases").GET()).statusCode()).as("no key").isEqualTo(401);
            }
        }
    }

    private static JsonObject get(GatewayHarness gw, String path, String key, int status) throws Exception {
        HttpResponse<String> response = gw.send(gw.request(path).header("Authorization", "Bearer " + key).GET());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(status);
        return status == 200 ? new JsonObject(response.body()) : null;
    }
}
