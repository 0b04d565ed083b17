package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.testing.GatewayProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gateway as users run it: README's {@code ./fencegate serve}, the launcher script and the
 * runtime classpath it runs on (not the test classpath, which hid a missing runtime jar once), on
 * three configs: the embedded default, Redis + MariaDB and ZooKeeper + Postgres (with API keys).
 * On each, every route is driven, a lease's event stream, the lease listing and the status page
 * too; the log must stay free of errors, warnings and stack traces, and every metric
 * docs/gateway.md documents must be scraped, with every documented label value.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LaunchedGatewayIT {
    /** What a user must never see in the log of a healthy gateway serving well-formed requests. */
    private static final Pattern TROUBLE = Pattern.compile("\\b(ERROR|WARN)\\b|Exception|Error:|^\\s+at ",
            Pattern.MULTILINE);
    /** A documented metric: {@code `fencegate_writes_total{store,outcome=applied|stale|refused}`}. */
    private static final Pattern DOCUMENTED_METRIC = Pattern.compile("`(fencegate_[a-z_]+)\\{([^}]*)}`");
    /** A metric without labels (a gauge), named in the Observability section alone: elsewhere such names are tables. */
    private static final Pattern DOCUMENTED_GAUGE = Pattern.compile("`(fencegate_[a-z_]+)`");
    private static final long EVENT_WAIT_MS = 15_000;
    private static final Map<String, String> JVM_FLAGS = Map.of("FENCEGATE_JAVA_OPTS", "-XX:TieredStopAtLevel=1 -Xmx256m");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    @TempDir
    Path work;
    private URI base;
    /** Sent with every request when the config has API keys. */
    private String apiKey;

    @ParameterizedTest(name = "{0}")
    @EnumSource(LaunchedConfig.class)
    void theLaunchedGatewayServesEveryRouteWithACleanLogAndEveryDocumentedMetric(LaunchedConfig config) throws Exception {
        String scrape;
        try (LaunchedConfig.Running backends = config.start(work);
                GatewayProcess gw = FencegateScript.launch(work, JVM_FLAGS, backends.args())) {
            base = gw.awaitReady(90).uri(); // a busy machine takes 10-20 s to start it
            apiKey = backends.adminKey();
            driveEveryRoute();
            driveLeaseEventsListingAndStatusPage(backends.scopedKey());
            HttpResponse<String> metrics = send("GET", "/metrics", null, null);
            assertThat(metrics.statusCode()).isEqualTo(200);
            scrape = metrics.body();
            gw.terminate();
            assertThat(gw.exit(60)).as(gw.output()).isEqualTo(143);
            Matcher trouble = TROUBLE.matcher(gw.output());
            assertThat(trouble.find()).as("the launched gateway's log:\n%s", gw.output()).isFalse();
        }
        assertEveryDocumentedMetricIsScraped(scrape);
    }

    private void driveEveryRoute() throws Exception {
        expect(200, "GET", "/health", null, null);
        expect(200, "GET", "/openapi.yaml", null, null);
        expect(404, "GET", "/no/such/route", null, null);

        JsonObject lease = new JsonObject(expect(201, "POST", "/v1/leases", null,
                "{\"lock\":\"main/docs/a.txt\",\"ttlMs\":30000}").body());
        String token = Long.toString(lease.getLong("token"));
        String leaseId = lease.getString("leaseId");
        expect(423, "POST", "/v1/leases", null, "{\"lock\":\"main/docs/a.txt\",\"ttlMs\":30000}");
        expect(200, "POST", "/v1/leases/" + leaseId + "/renew", null, "");
        expect(404, "GET", "/v1/stores/main/items/docs/a.txt", null, null);             // plain read, missing
        expect(404, "GET", "/v1/stores/main/items/docs/a.txt", token, null);            // fenced read claims
        expect(200, "PUT", "/v1/stores/main/items/docs/a.txt", token, "one");
        expect(409, "PUT", "/v1/stores/main/items/docs/a.txt", token, "again");         // strict: one write per token
        expect(403, "PUT", "/v1/stores/main/items/docs/a.txt", "987654321", "forged");  // never granted
        expect(403, "GET", "/v1/stores/main/items/docs/a.txt", "987654321", null);
        expect(428, "PUT", "/v1/stores/main/items/docs/a.txt", null, "no token");
        expect(400, "PUT", "/v1/stores/main/items/docs/../a.txt", token, "escape");
        expect(404, "GET", "/v1/stores/nosuch/items/a", null, null);
        assertThat(expect(200, "GET", "/v1/stores/main/items/docs/a.txt", null, null).body()).isEqualTo("one");
        expect(404, "POST", "/v1/stores/main/statements/debit", token, "{\"key\":\"docs/a.txt\",\"params\":{}}");
        expect(204, "DELETE", "/v1/leases/" + leaseId, null, null);
        expect(410, "POST", "/v1/leases/" + leaseId + "/renew", null, "");
        expect(410, "DELETE", "/v1/leases/" + leaseId, null, null);

        JsonObject next = new JsonObject(expect(201, "POST", "/v1/leases", null,
                "{\"lock\":\"main/docs/a.txt\",\"ttlMs\":30000,\"waitMs\":1000}").body());
        String nextToken = Long.toString(next.getLong("token"));
        expect(200, "GET", "/v1/stores/main/items/docs/a.txt", nextToken, null);        // fenced read, found
        expect(409, "GET", "/v1/stores/main/items/docs/a.txt", token, null);            // the old holder: stale
        expect(200, "DELETE", "/v1/stores/main/items/docs/a.txt", nextToken, null);
        expect(409, "PUT", "/v1/stores/main/items/docs/a.txt", token, "late");          // the old holder's write
        expect(204, "DELETE", "/v1/leases/" + next.getString("leaseId"), null, null);

        JsonObject file = new JsonObject(expect(201, "POST", "/v1/leases", null,
                "{\"lock\":\"files/reports/r.txt\",\"ttlMs\":30000}").body());
        String fileToken = Long.toString(file.getLong("token"));
        expect(200, "PUT", "/v1/stores/files/items/reports/r.txt", fileToken, "report");
        assertThat(expect(200, "GET", "/v1/stores/files/items/reports/r.txt", null, null).body()).isEqualTo("report");
        expect(204, "DELETE", "/v1/leases/" + file.getString("leaseId"), null, null);
    }

    /**
     * A lease watched over {@code /v1/leases/{id}/events} while it is listed, renewed and shown on
     * the status page, then released. With a {@code scopedKey} (for {@code main/alice/} only), its
     * status shows none of it: not the lease, not the refused write, not main's counts.
     */
    private void driveLeaseEventsListingAndStatusPage(String scopedKey) throws Exception {
        JsonObject lease = new JsonObject(expect(201, "POST", "/v1/leases", null,
                "{\"lock\":\"main/docs/watched.txt\",\"ttlMs\":30000}").body());
        String leaseId = lease.getString("leaseId");
        long token = lease.getLong("token");
        try (SseStream events = SseStream.open(base.resolve("/v1/leases/" + leaseId + "/events"), apiKey)) {
            JsonObject page = new JsonObject(expect(200, "GET", "/v1/leases?prefix=main/docs/", null, null).body());
            assertThat(page.getJsonArray("leases")).hasSize(1);
            JsonObject listed = page.getJsonArray("leases").getJsonObject(0);
            assertThat(listed.getString("lock")).isEqualTo("main/docs/watched.txt");
            assertThat(listed.getLong("token")).isEqualTo(token);
            assertThat(listed.getString("grantedBy")).isNotBlank();
            assertThat(listed.containsKey("leaseId")).as("lease ids are the holders' secrets").isFalse();

            Thread.sleep(20); // so the renew moves the expiry by at least a millisecond
            expect(200, "POST", "/v1/leases/" + leaseId + "/renew", null, "");
            SseStream.Event renewed = events.await(EVENT_WAIT_MS, e -> true);
            assertThat(renewed.name()).isEqualTo("renewed");
            assertThat(renewed.data().getString("lock")).isEqualTo("main/docs/watched.txt");
            assertThat(renewed.data().getLong("token")).isEqualTo(token);

            assertStatusPage(token, scopedKey);

            expect(204, "DELETE", "/v1/leases/" + leaseId, null, null);
            assertThat(events.await(EVENT_WAIT_MS, e -> true).name()).isEqualTo("released");
            assertThat(events.closed(EVENT_WAIT_MS)).as("the stream ends after the lease").isTrue();
        }
    }

    /** {@code /ui}, and a status from {@code /ui/events} showing the watched lease and the refused write. */
    private void assertStatusPage(long leaseToken, String scopedKey) throws Exception {
        HttpResponse<String> ui = expect(200, "GET", "/ui", null, null);
        assertThat(ui.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        assertThat(ui.body()).contains("/ui/events");
        JsonObject status;
        try (SseStream events = SseStream.open(base.resolve("/ui/events"), apiKey)) {
            status = events.await(EVENT_WAIT_MS, e -> e.name().equals("status")
                    && e.data().getJsonArray("leases", new JsonArray()).stream()
                            .anyMatch(l -> ((JsonObject) l).getString("lock").equals("main/docs/watched.txt"))).data();
        }
        assertThat(status.getString("scope")).isEqualTo("full");
        assertThat(status.getJsonObject("health").getString("status")).as(status.encode()).isEqualTo("UP");
        assertThat(status.getJsonObject("health").getJsonObject("checks").fieldNames())
                .containsExactlyInAnyOrder("issuer", "store:main", "store:files");
        assertThat(status.getJsonArray("leases").stream().map(l -> ((JsonObject) l).getLong("token"))).contains(leaseToken);
        assertThat(status.getJsonObject("stores").getJsonObject("main").getJsonObject("writes").getLong("stale"))
                .as(status.encode()).isGreaterThanOrEqualTo(1);
        assertThat(status.getJsonArray("refusals").stream().map(r -> ((JsonObject) r).getString("key")))
                .as(status.encode()).contains("docs/a.txt");
        if (scopedKey == null) {
            return;
        }
        try (SseStream events = SseStream.open(base.resolve("/ui/events"), scopedKey)) {
            status = events.await(EVENT_WAIT_MS, e -> e.name().equals("status")).data();
        }
        assertThat(status.getString("key")).isEqualTo("alice");
        assertThat(status.getJsonArray("leases")).as(status.encode()).isEmpty();
        assertThat(status.getJsonArray("refusals")).as(status.encode()).isEmpty();
        assertThat(status.getJsonObject("stores")).isEqualTo(new JsonObject().put("main", new JsonObject().put("partial", true)));
        assertThat(status.encode()).doesNotContain("docs/");
    }

    /**
     * Every {@code `fencegate_…{labels}`} in docs/gateway.md's Observability section is scraped with
     * every documented label and label value, and the scrape has no fencegate metric the doc omits.
     */
    private static void assertEveryDocumentedMetricIsScraped(String scrape) throws Exception {
        String doc = Files.readString(FencegateScript.repoRoot().resolve("docs/gateway.md"));
        Matcher m = DOCUMENTED_METRIC.matcher(doc);
        Map<String, String> documented = new LinkedHashMap<>();
        while (m.find()) {
            documented.put(m.group(1), m.group(2));
        }
        int observability = doc.indexOf("\n## Observability");
        Matcher gauges = DOCUMENTED_GAUGE.matcher(doc.substring(observability, doc.indexOf("\n## ", observability + 1)));
        while (gauges.find()) {
            documented.putIfAbsent(gauges.group(1), null);
        }
        assertThat(documented).as("metrics documented in docs/gateway.md").hasSizeGreaterThanOrEqualTo(4);
        List<String> samples = scrape.lines().filter(l -> !l.startsWith("#")).toList();
        for (var metric : documented.entrySet()) {
            List<String> lines = samples.stream()
                    .filter(l -> l.startsWith(metric.getKey() + "{") || l.startsWith(metric.getKey() + " ")).toList();
            assertThat(lines).as("%s in /metrics", metric.getKey()).isNotEmpty();
            if (metric.getValue() == null) {
                continue;
            }
            for (String label : metric.getValue().split(",")) {
                String[] nameAndValues = label.trim().split("=", 2);
                List<String> values = nameAndValues.length == 2
                        ? Arrays.asList(nameAndValues[1].split("\\|")) : List.of("");
                for (String value : values) {
                    String wanted = nameAndValues[0] + "=\"" + value;
                    assertThat(lines).as("%s with %s", metric.getKey(), wanted).anyMatch(l -> l.contains(wanted));
                }
            }
        }
        TreeSet<String> undocumented = new TreeSet<>();
        for (String sample : samples) {
            String name = sample.split("[{ ]", 2)[0];
            if (name.startsWith("fencegate_") && documented.keySet().stream().noneMatch(
                    d -> name.equals(d) || name.matches(Pattern.quote(d) + "_(count|sum|max|bucket)"))) {
                undocumented.add(name);
            }
        }
        assertThat(undocumented).as("fencegate metrics that docs/gateway.md does not document").isEmpty();
        assertThat(samples).as("JVM meters").anyMatch(l -> l.startsWith("jvm_memory_used_bytes{"));
        assertThat(samples).as("request percentiles").anyMatch(
                l -> l.startsWith("fencegate_http_requests_seconds{") && l.contains("quantile=\"0.99\""));
    }

    private HttpResponse<String> expect(int status, String method, String path, String token, String body)
            throws Exception {
        HttpResponse<String> r = send(method, path, token, body);
        assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isEqualTo(status);
        return r;
    }

    private HttpResponse<String> send(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base.toString() + path.substring(1)))
                .timeout(Duration.ofSeconds(20))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Fencing-Token", token);
        }
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    @Test
    void fencegateJavaOptsIsAJvmFlagAndNoConfigOverride() throws Exception {
        Path config = configWithEmbeddedZooKeeper();
        try (GatewayProcess gw = FencegateScript.launch(work, Map.of("FENCEGATE_JAVA_OPTS", "-Xmx256m"),
                "serve", "--port", "0", "--config", config.toString()).awaitReady(90)) {
            base = gw.uri();
            expect(200, "GET", "/health", null, null);
            // The flag reached the JVM: its heap is capped at 256 MiB.
            String heapMax = send("GET", "/metrics", null, null).body().lines()
                    .filter(l -> l.startsWith("jvm_memory_max_bytes{") && l.contains("area=\"heap\""))
                    .filter(l -> !l.endsWith(" -1.0")).findFirst().orElseThrow();
            assertThat(Double.parseDouble(heapMax.substring(heapMax.lastIndexOf(' ') + 1))).isLessThanOrEqualTo(256.0 * 1024 * 1024);
        }
    }

    @Test
    void anUnknownFencegateVariableStillStopsStartUpNamingIt() throws Exception {
        Path config = configWithEmbeddedZooKeeper();
        Map<String, String> env = new LinkedHashMap<>(JVM_FLAGS);
        env.put("FENCEGATE_FOO", "1");
        try (GatewayProcess gw = FencegateScript.launch(work, env, "serve", "--port", "0", "--config", config.toString())) {
            assertThat(gw.exit(60)).as(gw.output()).isEqualTo(2);
            assertThat(gw.output()).contains("FENCEGATE_FOO: names no config key");
        }
    }

    private Path configWithEmbeddedZooKeeper() throws Exception {
        Path files = Files.createDirectories(work.resolve("files"));
        List<String> yaml = new ArrayList<>(List.of(
                "issuer: { type: embedded-zookeeper, dataDir: \"" + work.resolve("zookeeper") + "\" }",
                "stores:",
                "  files: { type: files, dir: \"" + files + "\" }"));
        return Files.write(work.resolve("fencegate.yaml"), yaml);
    }
}
