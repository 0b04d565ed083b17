package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.store.GuardRule;
import io.fencegate.store.StoreLimits;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gateway whose {@code limits.maxKeyBytes} is raised takes a key of that length in the request
 * line, every byte percent-encoded (multi-byte characters): the request line's limit follows the key
 * limit, so such a key is served, and one byte more is a 400, never a 414.
 */
@Timeout(60)
class LongKeysIT {

    @Test
    void aKeyAtARaisedLimitEveryByteEncodedIsServedAndOneByteMoreIsABadKey() throws Exception {
        var issuer = new MemoryIssuerProvider.MemoryIssuer(0);
        var store = new MemoryStoreProvider.MemoryStore(GuardRule.STRICT, StoreLimits.DEFAULT);
        try (GatewayHarness gw = new GatewayHarness(new GatewayOptions().maxKeyBytes(2048), issuer,
                List.of(StoreBinding.of("s", store)), List.of(issuer))) {
            HttpClient http = HttpClient.newHttpClient();
            String atLimit = "é".repeat(1024); // 2048 UTF-8 bytes, 6144 characters percent-encoded
            assertThat(get(http, gw, atLimit).statusCode()).as("a missing item at the limit").isEqualTo(404);
            HttpResponse<String> over = get(http, gw, atLimit + "x");
            assertThat(over.statusCode()).isEqualTo(400);
            assertThat(over.body()).contains("bad-key");
        }
    }

    private static HttpResponse<String> get(HttpClient http, GatewayHarness gw, String key) throws Exception {
        String path = "v1/stores/s/items/" + URLEncoder.encode(key, StandardCharsets.UTF_8);
        return http.send(HttpRequest.newBuilder(gw.uri().resolve(path)).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
