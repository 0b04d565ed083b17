package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.KeyShares;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.testing.TcpProxy;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /health} is what an orchestrator's liveness and readiness probes call, without a key. It must
 * answer the truth (up or down) however many callers without a key are in flight: a flood of
 * unauthenticated requests must not make it answer 429, or the orchestrator would restart a healthy
 * gateway. Its cost is bounded another way: concurrent checks share one probe of each backend.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HealthUnderFloodIT {
    private static final int KEYLESS_SHARE = 2;
    private static TestingServer zookeeper;
    private static TestDatabases db;
    private static TcpProxy proxy;
    private static GatewayHarness gw;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
        db = TestDatabases.create(TestDatabases.Kind.MARIADB);
        proxy = TcpProxy.start(db.backend());
        var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                .operationTimeout(Duration.ofSeconds(3)).sessionTimeout(Duration.ofSeconds(60)).build();
        var store = db.storeVia(proxy.port(), GuardRule.STRICT);
        AuthConfig auth = new AuthConfig(List.of(new ApiKey("ops", ApiKeyHasher.sha256Hex("ops-7d2f9a4c1e8b3605a9e4c7b2d1f0"),
                List.of("*"), List.of("*"))));
        gw = new GatewayHarness(new GatewayOptions().auth(auth)
                .keyShares(new KeyShares().keylessRequests(KEYLESS_SHARE)).requestTimeout(Duration.ofSeconds(6)),
                issuer, List.of(StoreBinding.of("db", store)), List.of(zookeeper, db, proxy, issuer, store));
    }

    @AfterAll
    static void stop() throws Exception {
        if (gw != null) {
            gw.close();
        }
    }

    @Test
    void manyConcurrentChecksWhileTheStoreHangsAreAllAnsweredDownNoneRefused() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        proxy.stall();
        try {
            List<CompletableFuture<HttpResponse<String>>> checks = new ArrayList<>();
            for (int i = 0; i < 10 * KEYLESS_SHARE; i++) {
                checks.add(http.sendAsync(gw.request("/health").timeout(Duration.ofSeconds(30)).GET().build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            List<Integer> codes = new ArrayList<>();
            for (var check : checks) {
                codes.add(check.get(40, TimeUnit.SECONDS).statusCode());
            }
            assertThat(codes).as("every check answers the store down; none is refused for the keyless share")
                    .containsOnly(503);
        } finally {
            proxy.restore();
        }
        Awaitility.await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(300))
                .until(() -> gw.send(gw.request("/health").GET()).statusCode() == 200);
    }
}
