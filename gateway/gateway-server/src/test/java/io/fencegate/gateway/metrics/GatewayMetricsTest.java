package io.fencegate.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.metrics.GatewayMetrics.ReadOutcome;
import io.fencegate.gateway.metrics.GatewayMetrics.WriteOutcome;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Prometheus exposition shows each outcome under its store, and route timings by pattern. */
@Timeout(30)
class GatewayMetricsTest {

    @Test
    void outcomesAreCountedPerStoreAndScrapedAsPrometheusText() {
        GatewayMetrics m = GatewayMetrics.prometheus();
        m.write("orders", WriteOutcome.APPLIED);
        m.write("orders", WriteOutcome.APPLIED);
        m.write("orders", WriteOutcome.STALE);
        m.write("files", WriteOutcome.REFUSED);
        m.fencedRead("orders", ReadOutcome.CLAIMED);
        m.fencedRead("orders", ReadOutcome.STALE);
        m.leaseGranted();
        m.leaseDenied();
        m.leaseDenied();
        String text = m.scrape();
        assertThat(text)
                .contains("fencegate_writes_total{outcome=\"applied\",store=\"orders\"} 2.0")
                .contains("fencegate_writes_total{outcome=\"stale\",store=\"orders\"} 1.0")
                .contains("fencegate_writes_total{outcome=\"refused\",store=\"files\"} 1.0")
                .contains("fencegate_fenced_reads_total{outcome=\"claimed\",store=\"orders\"} 1.0")
                .contains("fencegate_fenced_reads_total{outcome=\"stale\",store=\"orders\"} 1.0")
                .contains("fencegate_leases_total{outcome=\"granted\"} 1.0")
                .contains("fencegate_leases_total{outcome=\"denied\"} 2.0")
                .contains("jvm_memory_used_bytes")
                .contains("jvm_compilation_time_ms_total");
        assertThat(m.enabled()).isTrue();
    }

    @Test
    void timedRouteRecordsLatencyUnderItsPatternMethodAndStatus() throws Exception {
        GatewayMetrics m = GatewayMetrics.prometheus();
        Vertx vertx = Vertx.vertx();
        try {
            Router router = Router.router(vertx);
            router.put("/v1/stores/:store/items/*").handler(m.timed("/v1/stores/{store}/items/{key}",
                    ctx -> vertx.setTimer(20, t -> ctx.response().setStatusCode(409).end())));
            int port = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
            HttpClient http = HttpClient.newHttpClient();
            for (String key : new String[] {"a", "b/c", "d"}) {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + port + "/v1/stores/s/items/" + key))
                        .timeout(Duration.ofSeconds(5)).PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                        HttpResponse.BodyHandlers.discarding());
                assertThat(r.statusCode()).isEqualTo(409);
            }
            String labels = "method=\"PUT\",route=\"/v1/stores/{store}/items/{key}\",status=\"409\"";
            // The end handler records after the last byte went out, so the client may see it first.
            String text = m.scrape();
            for (long deadline = System.nanoTime() + 5_000_000_000L;
                    !text.contains("_count{" + labels + "} 3") && System.nanoTime() < deadline; text = m.scrape()) {
                Thread.sleep(10);
            }
            assertThat(text).contains("fencegate_http_requests_seconds_count{" + labels + "} 3")
                    .contains("fencegate_http_requests_seconds{" + labels + ",quantile=\"0.99\"}")
                    .doesNotContain("items/b/c");
            double sum = Double.parseDouble(text.lines()
                    .filter(l -> l.startsWith("fencegate_http_requests_seconds_sum{" + labels + "}"))
                    .findFirst().orElseThrow().replaceAll(".* ", ""));
            assertThat(sum).isGreaterThanOrEqualTo(0.055); // three answers each held back 20 ms
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void inventedMethodsShareOneLabelSoAClientCannotGrowTheSeries() throws Exception {
        GatewayMetrics m = GatewayMetrics.prometheus();
        Vertx vertx = Vertx.vertx();
        try {
            Router router = Router.router(vertx);
            router.route("/v1/stores/:store/items/*").handler(m.timed("/v1/stores/{store}/items/{key}",
                    ctx -> ctx.response().setStatusCode(405).end()));
            int port = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
            HttpClient http = HttpClient.newHttpClient();
            for (String method : new String[] {"FOO1", "FOO2", "BREW", "GET"}) {
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/stores/s/items/k"))
                        .timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.discarding());
            }
            String other = "method=\"other\",route=\"/v1/stores/{store}/items/{key}\",status=\"405\"";
            String text = m.scrape();
            for (long deadline = System.nanoTime() + 5_000_000_000L;
                    !text.contains("_count{" + other + "} 3") && System.nanoTime() < deadline; text = m.scrape()) {
                Thread.sleep(10);
            }
            assertThat(text).contains("fencegate_http_requests_seconds_count{" + other + "} 3")
                    .contains("method=\"GET\"")
                    .doesNotContain("FOO1").doesNotContain("BREW");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void noopCountsNothingAndHandsTheRouteItsOwnHandler() {
        GatewayMetrics m = GatewayMetrics.noop();
        io.vertx.core.Handler<io.vertx.ext.web.RoutingContext> h = ctx -> {};
        assertThat(m.timed("/x", h)).isSameAs(h);
        m.write("s", WriteOutcome.APPLIED);
        m.leaseGranted();
        assertThat(m.enabled()).isFalse();
        assertThat(m.scrape()).isEmpty();
    }
}
