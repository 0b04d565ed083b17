package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.gateway.Gateway;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import java.net.URLEncoder;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input of every kind gets a 4xx, the server stays up, and no state changes: after each
 * test the item written in {@link #seed()} still has its value and token, and {@code /health} is 200.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadInputIT {
    private static final String KEY = "bad-input/item";
    private static TestingServer zookeeper;
    private static TestDatabases db;
    private static GatewayHarness gw;
    private static long token;
    private static long nextToken;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
        db = TestDatabases.create(TestDatabases.Kind.POSTGRES);
        var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                .operationTimeout(Duration.ofSeconds(5)).build();
        var store = db.store(GuardRule.STRICT);
        gw = new GatewayHarness(new GatewayOptions().maxBodyBytes(1024), issuer, List.of(StoreBinding.of("s", store)),
                List.of(zookeeper, db, issuer, store));
    }

    @AfterAll
    static void stop() throws Exception {
        if (gw != null) {
            gw.assertEventLoopNeverBlocked();
            gw.close();
        }
    }

    @BeforeEach
    void seed() {
        if (token == 0) {
            Lease first = gw.client().acquire("s/" + KEY, Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
            gw.client().release(first.leaseId());
            Lease second = gw.client().acquire("s/" + KEY, Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
            gw.client().release(second.leaseId());
            token = first.token();
            nextToken = second.token();
            assertThat(gw.client().put("s", KEY, token, bytes("original")).applied()).isTrue();
        }
    }

    @AfterEach
    void nothingChangedAndServerIsUp() throws Exception {
        ReadOutcome read = gw.client().get("s", KEY);
        assertThat(read).isInstanceOf(ReadOutcome.Value.class);
        assertThat(((ReadOutcome.Value) read).bytes()).isEqualTo(bytes("original"));
        assertThat(((ReadOutcome.Value) read).token()).isEqualTo(token);
        assertThat(gw.send(gw.request("/health").GET()).statusCode()).isEqualTo(200);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "0", "00", "-5", "+5", "0x10", "1e3", "5.0", "abc", "١٢",
        "9223372036854775808", "99999999999999999999999999"})
    void malformedTokensAre400(String header) throws Exception {
        for (String method : List.of("PUT", "DELETE", "GET")) {
            String head = method + " /v1/stores/s/items/" + KEY + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Fencing-Token: " + header + "\r\nContent-Length: 4\r\nConnection: close\r\n\r\n";
            assertThat(gw.raw(head, bytes("evil"))).as(method + " with '" + header + "'").isEqualTo(400);
        }
    }

    @Test
    void twoTokenHeadersAre400() throws Exception {
        String head = "PUT /v1/stores/s/items/" + KEY + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: "
                + nextToken + "\r\nFencing-Token: " + token + "\r\nContent-Length: 4\r\nConnection: close\r\n\r\n";
        assertThat(gw.raw(head, bytes("evil"))).isEqualTo(400);
    }

    @Test
    void missingTokenIs428() throws Exception {
        assertThat(gw.send(gw.request("/v1/stores/s/items/" + KEY).PUT(BodyPublishers.ofString("evil"))).statusCode())
                .isEqualTo(428);
        assertThat(gw.send(gw.request("/v1/stores/s/items/" + KEY).DELETE()).statusCode()).isEqualTo(428);
    }

    @ParameterizedTest
    @ValueSource(strings = {"bad-input/../bad-input/item", "bad-input/./item", "bad-input//item", "%2e%2e/bad-input/item",
        "bad-input/%2E%2E/bad-input/item", "%2Fbad-input/item", "bad-input/item%00", "%zz", "bad-input/%C3%28",
        "../../../../etc/passwd"})
    void traversalAndMalformedKeysAreRefused(String rawKey) throws Exception {
        String head = "PUT /v1/stores/s/items/" + rawKey + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: "
                + nextToken + "\r\nContent-Length: 4\r\nConnection: close\r\n\r\n";
        // 400 for a malformed key; 404 where the router's own normalisation already left the store routes.
        assertThat(gw.raw(head, bytes("evil"))).as(rawKey).isIn(400, 404);
    }

    @Test
    void aKeyOverTheLengthLimitIs400() throws Exception {
        String head = "PUT /v1/stores/s/items/" + "k".repeat(1025) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: "
                + nextToken + "\r\nContent-Length: 4\r\nConnection: close\r\n\r\n";
        assertThat(gw.raw(head, bytes("evil"))).isEqualTo(400);
    }

    /**
     * Keys and locks share one rule, in UTF-8 bytes: the lock {@code {store}/{key}} of any key the
     * gateway accepts (up to limits.maxKeyBytes bytes, 1024 here) can be leased, so its item can be
     * written. One byte more is a 400 bad-key.
     */
    @ParameterizedTest
    @ValueSource(strings = {"k", "€", "😀"})
    void everyKeyTheGatewayAcceptsCanBeLeasedAndWritten(String unit) throws Exception {
        int bytes = unit.getBytes(StandardCharsets.UTF_8).length;
        String longest = "x".repeat(1024 % bytes) + unit.repeat(1024 / bytes);
        assertThat(longest.getBytes(StandardCharsets.UTF_8)).hasSize(1024);
        Lease lease = gw.client().acquire("s/" + longest, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(gw.client().put("s", longest, lease.token(), bytes("longest")).applied()).isTrue();
        assertThat(((ReadOutcome.Value) gw.client().get("s", longest)).bytes()).isEqualTo(bytes("longest"));
        gw.client().release(lease.leaseId());

        var tooLong = gw.send(gw.request("/v1/stores/s/items/" + URLEncoder.encode("y" + longest, StandardCharsets.UTF_8))
                .PUT(BodyPublishers.ofString("evil")).header("Fencing-Token", Long.toString(nextToken)));
        assertThat(tooLong.statusCode()).as(tooLong.body()).isEqualTo(400);
        assertThat(tooLong.body()).contains("urn:fencegate:problem:bad-key");
    }

    @Test
    void aStoreWhoseLocksTheIssuerCannotTakeStopsTheStart() {
        var store = gw.stores.get(0).store();
        // {store}/{key} of a 1024-byte key under a 3100-byte store name, and a store's own lock of 5000 bytes.
        var tooLong = Map.of("limits.maxKeyBytes is 1024", StoreBinding.of("n".repeat(3100), store),
                "stores.one-lock.lock is 5000 UTF-8 bytes", new StoreBinding("one-lock", store, null, null, "l".repeat(5000)));
        tooLong.forEach((message, binding) -> assertThatThrownBy(
                () -> Gateway.start(gw.vertx, new GatewayOptions(), gw.issuer, List.of(binding), gw.metrics)
                        .await(20, TimeUnit.SECONDS))
                .hasMessageStartingWith(message).hasMessageEndingWith("the issuer takes at most 4096"));
    }

    @Test
    void oversizedBodiesAre413DeclaredOrChunked() throws Exception {
        String declared = "PUT /v1/stores/s/items/" + KEY + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: "
                + nextToken + "\r\nContent-Length: 1025\r\nConnection: close\r\n\r\n";
        assertThat(gw.raw(declared, new byte[1025])).isEqualTo(413);

        StringBuilder chunks = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            chunks.append("100\r\n").append("y".repeat(256)).append("\r\n");
        }
        chunks.append("0\r\n\r\n");
        String chunked = "PUT /v1/stores/s/items/" + KEY + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: "
                + nextToken + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
        assertThat(gw.raw(chunked, bytes(chunks.toString()))).isEqualTo(413);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GARBAGE\r\n\r\n", "PUT\r\n\r\n", "GET / HTTP/9.9\r\n\r\n",
        "PUT /v1/stores/s/items/x HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n",
        "PUT /v1/stores/s/items/x HTTP/1.1\r\nHost: a\r\nContent-Length: zz\r\n\r\n"})
    void malformedHttpIsRefused(String request) throws Exception {
        int status = gw.raw(request, new byte[0]);
        // A 4xx, "not implemented"/"version not supported", or a closed connection (-1); never a 500.
        assertThat(status).as(request).satisfiesAnyOf(s -> assertThat(s).isBetween(400, 499),
                s -> assertThat(s).isIn(501, 505, -1));
    }

    @Test
    void invalidJsonAndWrongTypesAre400() throws Exception {
        for (String body : List.of("{", "null", "\"x\"", "{\"lock\":null,\"ttlMs\":1000}", "{\"lock\":\"s/" + KEY
                + "\",\"ttlMs\":true}")) {
            assertThat(gw.send(gw.request("/v1/leases").POST(BodyPublishers.ofString(body))).statusCode())
                    .as(body).isEqualTo(400);
        }
    }

    @Test
    void unknownRoutesAre404Or405() throws Exception {
        assertThat(gw.send(gw.request("/v2/stores/s/items/" + KEY).GET()).statusCode()).isEqualTo(404);
        assertThat(gw.send(gw.request("/v1/stores/nosuch/items/" + KEY).GET()).statusCode()).isEqualTo(404);
        // GET /v1/leases is the lease listing now (issue 16); PUT is still no route.
        assertThat(gw.send(gw.request("/v1/leases").PUT(BodyPublishers.ofString("{}"))).statusCode()).isIn(404, 405);
        assertThat(gw.send(gw.request("/v1/stores/s/items/" + KEY).method("PATCH", BodyPublishers.ofString("x"))
                .header("Fencing-Token", Long.toString(nextToken))).statusCode()).isEqualTo(405);
    }
}
