package io.fencegate.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.PostgresSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shop started as Spring Boot starts it (a real port, Boot's own HikariCP DataSource on a Postgres
 * schema of its own, leases from a ZooKeeper test server) and driven over HTTP: many buyers at once
 * sell exactly the stock, one order row per unit.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext // closes the pool and the issuer before @AfterAll drops the schema
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShopApplicationIT {
    private static final TestingServer ZOOKEEPER;
    private static final PostgresSchema DB;

    static {
        try {
            ZOOKEEPER = new TestingServer(true);
            DB = PostgresSchema.create("ex_spring");
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @DynamicPropertySource
    static void backends(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::jdbcUrl);
        registry.add("fencegate.issuer.zookeeper.connect-string", ZOOKEEPER::getConnectString);
        registry.add("shop.lease.wait", () -> "30s"); // every buyer queues for the lock
    }

    @AfterAll
    static void stop() throws Exception {
        DB.close();
        ZOOKEEPER.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> call(String method, String path) throws Exception {
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
