package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.files.FilesGuardedStore;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two API keys on one gateway (ZooKeeper issuer, two files stores): key a, holding key b's lease id,
 * can neither renew, release nor watch b's lease (403, and b's lease lives on), and a 404 for an
 * unknown store names only the stores the caller may use.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TenantLeaseAccessIT {
    private static final String KEY_A = ApiKeyHasher.newKey();
    private static final String KEY_B = ApiKeyHasher.newKey();
    private static TestingServer zookeeper;
    private static Path dir;
    private static GatewayHarness gw;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "tenant-access");
        LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build();
        var storeA = FilesGuardedStore.open(Files.createDirectory(dir.resolve("a")), GuardRule.STRICT);
        var storeB = FilesGuardedStore.open(Files.createDirectory(dir.resolve("b")), GuardRule.STRICT);
        AuthConfig auth = new AuthConfig(List.of(
                new ApiKey("a", ApiKeyHasher.sha256Hex(KEY_A), List.of("alpha"), List.of("alpha/")),
                new ApiKey("b", ApiKeyHasher.sha256Hex(KEY_B), List.of("bravo"), List.of("bravo/"))));
        gw = new GatewayHarness(new GatewayOptions().auth(auth), issuer,
                List.of(StoreBinding.of("alpha", storeA), StoreBinding.of("bravo", storeB)), List.of(issuer, storeA, storeB));
    }

    @AfterAll
    static void stop() throws Exception {
        if (gw != null) {
            gw.close();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (dir != null) {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void anotherKeysLeaseIdCannotBeRenewedReleasedOrWatched() throws Exception {
        FencegateClient b = gw.client(KEY_B);
        Lease lease = b.acquire("bravo/orders/1", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        String id = lease.leaseId();

        HttpResponse<String> renew = as(KEY_A, gw.request("/v1/leases/" + id + "/renew").POST(BodyPublishers.noBody()));
        assertThat(renew.statusCode()).as(renew.body()).isEqualTo(403);
        assertThat(new JsonObject(renew.body()).getString("type")).isEqualTo("urn:fencegate:problem:forbidden");
        HttpResponse<String> release = as(KEY_A, gw.request("/v1/leases/" + id).DELETE());
        assertThat(release.statusCode()).as(release.body()).isEqualTo(403);
        HttpResponse<String> watch = as(KEY_A, gw.request("/v1/leases/" + id + "/events").GET());
        assertThat(watch.statusCode()).as(watch.body()).isEqualTo(403);

        // Untouched: b still holds it, and its own calls work.
        assertThat(b.renew(id)).isPresent();
        assertThat(gw.client(KEY_A).acquire("alpha/x", Duration.ofSeconds(5), Duration.ZERO)).isPresent();
        assertThat(b.release(id)).isTrue();
        // Ended: still 403 for a, not 410 (a learns nothing about b's leases).
        assertThat(as(KEY_A, gw.request("/v1/leases/" + id).DELETE()).statusCode()).isEqualTo(403);
    }

    @Test
    void anUnknownStoreNamesOnlyTheStoresTheKeyMayUse() throws Exception {
        HttpResponse<String> r = as(KEY_A, gw.request("/v1/stores/nosuch/items/x").GET());
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(new JsonObject(r.body()).getString("detail")).contains("alpha").doesNotContain("bravo");
    }

    private static HttpResponse<String> as(String key, java.net.http.HttpRequest.Builder request) throws Exception {
        return gw.send(request.header("Authorization", "Bearer " + key));
    }
}
