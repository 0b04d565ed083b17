package io.fencegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The served openapi.yaml documents every call and status of DESIGN.md's contract table, which this
 * test reads from docs/DESIGN.md itself so the two cannot drift apart silently.
 */
class OpenApiDocumentTest {
    private static final Pattern CALL = Pattern.compile("`(GET|POST|PUT|DELETE) (/[^`\\s]*)");
    private static final Pattern STATUS = Pattern.compile("\\b([1-5]\\d\\d)\\b");

    private static JsonNode doc;
    private static Map<String, Set<String>> contract;

    @BeforeAll
    static void load() throws Exception {
        try (InputStream in = OpenApiDocumentTest.class.getResourceAsStream("/openapi.yaml")) {
            assertThat(in).as("openapi.yaml on the classpath").isNotNull();
            doc = new ObjectMapper(new YAMLFactory()).readTree(in);
        }
        contract = contractTable(Files.readAllLines(Path.of("../../docs/DESIGN.md")));
    }

    /** "METHOD /path" -> statuses, from the rows of the HTTP API table ("as PUT" inherits the PUT row). */
    static Map<String, Set<String>> contractTable(List<String> design) {
        Map<String, Set<String>> calls = new LinkedHashMap<>();
        List<String[]> asPut = new ArrayList<>();
        Set<String> putStatuses = null;
        boolean inSection = false;
        for (String line : design) {
            if (line.startsWith("## ")) {
                inSection = line.contains("gateway HTTP API");
            }
            if (!inSection || !line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            Set<String> statuses = new LinkedHashSet<>();
            for (int c = 2; c < cells.length; c++) {
                Matcher s = STATUS.matcher(cells[c]);
                while (s.find()) {
                    statuses.add(s.group(1));
                }
            }
            Matcher m = CALL.matcher(cells[1]);
            while (m.find()) {
                String call = m.group(1) + " " + m.group(2);
                calls.put(call, new LinkedHashSet<>(statuses.isEmpty() ? Set.of("200") : statuses));
                if (call.startsWith("PUT /v1/stores")) {
                    putStatuses = statuses;
                }
                // A failures cell reading just "as PUT" inherits the PUT row; the GET row's "403 as PUT" does not.
                if (cells.length > 3 && cells[3].strip().equals("as PUT")) {
                    asPut.add(new String[] {call});
                }
            }
        }
        assertThat(putStatuses).as("the PUT row of the contract table").isNotNull();
        for (String[] call : asPut) {
            calls.get(call[0]).addAll(putStatuses);
        }
        return calls;
    }

    @Test
    void designTableIsReadWhole() {
        assertThat(contract).containsKeys("POST /v1/leases", "POST /v1/leases/{leaseId}/renew",
                "DELETE /v1/leases/{leaseId}", "PUT /v1/stores/{store}/items/{key}",
                "GET /v1/stores/{store}/items/{key}", "DELETE /v1/stores/{store}/items/{key}",
                "POST /v1/stores/{store}/statements/{name}", "GET /health", "GET /metrics", "GET /openapi.yaml");
        assertThat(contract.get("DELETE /v1/stores/{store}/items/{key}")).contains("200", "409", "428", "413");
        assertThat(contract.get("GET /v1/stores/{store}/items/{key}")).containsExactlyInAnyOrder("200", "404", "409", "400", "403");
    }

    @Test
    void everyContractCallIsDocumentedWithEveryStatus() {
        contract.forEach((call, statuses) -> {
            String[] mp = call.split(" ", 2);
            JsonNode op = doc.path("paths").path(mp[1]).path(mp[0].toLowerCase(Locale.ROOT));
            assertThat(op.isObject()).as(call + " in openapi.yaml").isTrue();
            for (String status : statuses) {
                assertThat(op.path("responses").has(status)).as(call + " documents " + status).isTrue();
            }
        });
    }

    @Test
    void tokenCarryingCallsDeclareTheFencingTokenHeader() {
        assertThat(headerRequired("put", "/v1/stores/{store}/items/{key}")).isTrue();
        assertThat(headerRequired("delete", "/v1/stores/{store}/items/{key}")).isTrue();
        assertThat(headerRequired("post", "/v1/stores/{store}/statements/{name}")).isTrue();
        assertThat(headerRequired("get", "/v1/stores/{store}/items/{key}")).as("fenced read: optional").isFalse();
        assertThat(doc.at("/paths/~1v1~1stores~1{store}~1items~1{key}/get/responses/200/headers").has("Fencing-Token"))
                .isTrue();
    }

    @Test
    void failuresAreProblemJsonAndStaleCarriesCurrentTokenAndFence() {
        JsonNode responses = doc.at("/components/responses");
        responses.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("Applied")) {
                assertThat(e.getValue().path("content").has("application/problem+json")).as(e.getKey()).isTrue();
            }
        });
        JsonNode stale = doc.at("/components/schemas/StaleProblem/allOf/1/properties");
        assertThat(stale.has("currentToken")).isTrue();
        assertThat(stale.has("fence")).isTrue();
    }

    @Test
    void everyReferenceResolves() {
        List<String> refs = new ArrayList<>();
        collectRefs(doc, refs);
        assertThat(refs).isNotEmpty();
        for (String ref : refs) {
            assertThat(ref).startsWith("#/");
            assertThat(doc.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
        }
    }

    private static boolean headerRequired(String method, String path) {
        JsonNode op = doc.path("paths").path(path).path(method);
        for (JsonNode p : op.path("parameters")) {
            JsonNode param = p.has("$ref") ? doc.at(p.get("$ref").asText().substring(1)) : p;
            if (param.path("in").asText().equals("header") && param.path("name").asText().equals("Fencing-Token")) {
                return param.path("required").asBoolean(false);
            }
        }
        throw new AssertionError(method + " " + path + " has no Fencing-Token parameter");
    }

    private static void collectRefs(JsonNode node, List<String> refs) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (e.getKey().equals("$ref")) {
                    refs.add(e.getValue().asText());
                } else {
                    collectRefs(e.getValue(), refs);
                }
            });
        } else if (node.isArray()) {
            node.forEach(n -> collectRefs(n, refs));
        }
    }
}
