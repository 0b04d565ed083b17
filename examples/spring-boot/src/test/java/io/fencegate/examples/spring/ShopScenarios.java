package io.fencegate.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The shop driven over HTTP as a client drives it, whatever its issuer: many buyers at once sell
 * exactly the stock, one order row per unit; a bad restock changes nothing. Each subclass starts the
 * shop on its own backends.
 */
abstract class ShopScenarios {

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    HttpResponse<String> call(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void concurrentBuyersSellExactlyTheStock() throws Exception {
        assertThat(call("PUT", "/stock/sku-42?units=5").statusCode()).isEqualTo(200);
        List<CompletableFuture<Integer>> buyers = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            buyers.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return call("POST", "/stock/sku-42/sell").statusCode();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        List<Integer> statuses = buyers.stream().map(CompletableFuture::join).toList();
        assertThat(statuses).filteredOn(s -> s == 201).hasSize(5);
        assertThat(statuses).filteredOn(s -> s == 409).hasSize(7);
        assertThat(call("GET", "/stock/sku-42").body()).contains("\"qty\":0").contains("\"orders\":5");
    }

    @Test
    void badRestockIsRefusedAndChangesNothing() throws Exception {
        assertThat(call("PUT", "/stock/sku-7?units=3").statusCode()).isEqualTo(200);
        assertThat(call("PUT", "/stock/sku-7?units=-1").statusCode()).isEqualTo(400);
        assertThat(call("GET", "/stock/sku-7").body()).contains("\"qty\":3");
    }
}
