package io.fencegate.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Bearer-key handler on a real Vert.x router: who gets in, and what each key may touch. */
@Timeout(30)
class ApiKeyAuthHandlerTest {
    private static final String BILLING_KEY = ApiKeyHasher.newKey();
    private static final String ADMIN_KEY = ApiKeyHasher.newKey();

    private final Vertx vertx = Vertx.vertx();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private int port;

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static AuthConfig config() {
        return new AuthConfig(List.of(
                new ApiKey("billing", ApiKeyHasher.sha256Hex(BILLING_KEY), List.of("orders"), List.of("orders/")),
                new ApiKey("admin", ApiKeyHasher.sha256Hex(ADMIN_KEY), List.of("*"), List.of("*"))));
    }

    /** A router shaped like the gateway's: auth on /v1/*, a store route and a lease route behind it. */
    private void serve(AuthConfig config) throws Exception {
        Router router = Router.router(vertx);
        router.route("/health").handler(ctx -> ctx.response().end("ok"));
        router.route("/v1/*").handler(ApiKeyAuthHandler.create(config));
        router.get("/v1/stores/:store/items/*").handler(ctx -> {
            answer(ctx, Principal.of(ctx).mayUseStore(ctx.pathParam("store")), "store '" + ctx.pathParam("store") + "'");
        });
        router.post("/v1/leases/:lock").handler(ctx -> {
            answer(ctx, Principal.of(ctx).mayUseLock(ctx.pathParam("lock")), "lock '" + ctx.pathParam("lock") + "'");
        });
        HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        port = server.actualPort();
    }

    /** The principal's name, or 403 {@code forbidden} as the gateway's routes answer it. */
    private static void answer(RoutingContext ctx, boolean permitted, String what) {
        if (permitted) {
            ctx.response().end(Principal.of(ctx).name());
        } else {
            ctx.response().setStatusCode(403).putHeader("Content-Type", "application/problem+json")
                    .end(new JsonObject().put("type", ApiKeyAuthHandler.FORBIDDEN).put("title", "Forbidden")
                            .put("status", 403).put("detail", "this API key may not use " + what).encode());
        }
    }

    private HttpResponse<String> call(String method, String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).method(method, HttpRequest.BodyPublishers.noBody());
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void missingKeyIsA401ProblemWithBearerChallenge() throws Exception {
        serve(config());
        HttpResponse<String> r = call("GET", "/v1/stores/orders/items/a", null);
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        assertThat(r.body()).contains(ApiKeyAuthHandler.UNAUTHORIZED);
    }

    @Test
    void unknownKeyAndWrongSchemeAre401() throws Exception {
        serve(config());
        assertThat(call("GET", "/v1/stores/orders/items/a", ApiKeyHasher.newKey()).statusCode()).isEqualTo(401);
        HttpRequest basic = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/stores/orders/items/a"))
                .header("Authorization", "Basic " + BILLING_KEY).build();
        assertThat(http.send(basic, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
    }

    @Test
    void knownKeyReachesItsStoreAndIsNamed() throws Exception {
        serve(config());
        HttpResponse<String> r = call("GET", "/v1/stores/orders/items/a", BILLING_KEY);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("billing");
    }

    @Test
    void keyIsRefused403OnAStoreItWasNotGranted() throws Exception {
        serve(config());
        HttpResponse<String> r = call("GET", "/v1/stores/invoices/items/a", BILLING_KEY);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains(ApiKeyAuthHandler.FORBIDDEN).contains("invoices");
        assertThat(call("GET", "/v1/stores/invoices/items/a", ADMIN_KEY).statusCode()).isEqualTo(200);
    }

    @Test
    void lockPermissionFollowsThePrefix() throws Exception {
        serve(config());
        assertThat(call("POST", "/v1/leases/orders%2F17", BILLING_KEY).statusCode()).isEqualTo(200);
        assertThat(call("POST", "/v1/leases/invoices%2F17", BILLING_KEY).statusCode()).isEqualTo(403);
        assertThat(call("POST", "/v1/leases/anything", ADMIN_KEY).statusCode()).isEqualTo(200);
    }

    @Test
    void withNoKeysConfiguredEveryCallerIsAnonymousWithFullAccess() throws Exception {
        serve(AuthConfig.NONE);
        HttpResponse<String> r = call("GET", "/v1/stores/invoices/items/a", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("anonymous");
    }

    @Test
    void routesOutsideTheMountAreNotAuthenticated() throws Exception {
        serve(config());
        assertThat(call("GET", "/health", null).statusCode()).isEqualTo(200);
    }

    @Test
    void configParsesFromYamlWithStarOrLists() throws Exception {
        String yaml = """
                keys:
                  - name: billing
                    sha256: %s
                    stores: [orders]
                    lockPrefixes: ["orders/"]
                  - name: admin
                    sha256: %s
                    stores: "*"
                    lockPrefixes: "*"
                """.formatted(ApiKeyHasher.sha256Hex(BILLING_KEY), ApiKeyHasher.sha256Hex(ADMIN_KEY));
        AuthConfig parsed = new ObjectMapper(new YAMLFactory()).readValue(yaml, AuthConfig.class).validate();
        assertThat(parsed).isEqualTo(config());
        ApiKeyAuthHandler h = ApiKeyAuthHandler.create(parsed);
        assertThat(h.authenticate(ADMIN_KEY).mayUseStore("whatever")).isTrue();
        assertThat(h.authenticate(BILLING_KEY).mayUseLock("orders/1")).isTrue();
        assertThat(h.authenticate(BILLING_KEY).mayUseLock("ordersX")).isFalse();
        assertThat(h.authenticate("not-a-key-at-all")).isNull();
    }

    @Test
    void badConfigIsRefusedNamingTheKey() {
        String ok = ApiKeyHasher.sha256Hex(ADMIN_KEY);
        assertThatThrownBy(() -> new AuthConfig(List.of(new ApiKey("a", "abc", List.of("*"), List.of()))).validate())
                .hasMessageContaining("auth.keys[0].sha256");
        assertThatThrownBy(() -> new AuthConfig(List.of(
                new ApiKey("a", ok, List.of("*"), List.of()),
                new ApiKey("a", ApiKeyHasher.sha256Hex(BILLING_KEY), List.of("*"), List.of()))).validate())
                .hasMessageContaining("auth.keys[1].name");
        assertThatThrownBy(() -> new AuthConfig(List.of(
                new ApiKey("a", ok, List.of("*"), List.of()),
                new ApiKey("b", ok.toUpperCase(), List.of("*"), List.of()))).validate())
                .hasMessageContaining("auth.keys[1].sha256");
    }

    @Test
    void hashingIsSha256HexAndRefusesShortKeys() {
        assertThat(ApiKeyHasher.sha256Hex("abcdefghijklmnopqrstuvwxyz"))
                .isEqualTo("71c480df93d6ae2f1efad1447c66c9525e316218cf51fc8d9ed832f2daf18b73");
        assertThat(ApiKeyHasher.newKey()).hasSize(43).isNotEqualTo(ApiKeyHasher.newKey());
        assertThatThrownBy(() -> ApiKeyHasher.sha256Hex("short")).isInstanceOf(IllegalArgumentException.class);
        assertThat(ApiKeyHasher.configSnippet("ci", BILLING_KEY)).contains(ApiKeyHasher.sha256Hex(BILLING_KEY));
    }

    @Test
    void anItemNeedsItsStoreAndItsLockAndAWholeStoreNeedsItsLockPrefix() {
        Principal alice = Principal.of(new ApiKey("alice", ApiKeyHasher.sha256Hex(BILLING_KEY), List.of("main"),
                List.of("main/alice/")));
        assertThat(alice.mayUseItem("main", "main/alice/notes")).isTrue();
        assertThat(alice.mayUseItem("main", "main/bob/payroll")).as("another key's lock").isFalse();
        assertThat(alice.mayUseItem("files", "main/alice/notes")).as("a store not granted").isFalse();
        assertThat(alice.mayUseItem("main", "main/")).as("every item of main").isFalse();
        Principal mainOwner = Principal.of(new ApiKey("owner", ApiKeyHasher.sha256Hex(ADMIN_KEY), List.of("main"),
                List.of("main/")));
        assertThat(mainOwner.mayUseItem("main", "main/")).isTrue();
        assertThat(Principal.ANONYMOUS.mayUseItem("main", "main/")).isTrue();
    }
}
