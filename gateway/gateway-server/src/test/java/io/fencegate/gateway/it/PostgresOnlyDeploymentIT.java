package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fencegate.check.CheckCommand;
import io.fencegate.check.Report;
import io.fencegate.testing.GatewayProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/production.md's simplest production setup, as it is printed: one PostgreSQL database and two
 * gateway processes on the SQL issuer, nothing else. The documented YAML is loaded from the page
 * and pointed at a scratch schema by environment overrides; README's walkthrough runs through each
 * gateway, then {@code fencegate check} runs every workload across both and finds no violation.
 */
class PostgresOnlyDeploymentIT {
    private static final String BEGIN = "<!-- sql-deployment:begin -->";
    private static final String END = "<!-- sql-deployment:end -->";

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void twoGatewaysOnOnePostgresAloneRunTheWalkthroughAndTheCheckerFindsNoViolation() throws Exception {
        String yaml = documentedConfig();
        assertThat(yaml).contains("type: sql").doesNotContain("zookeeper", "redis");
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "postgres-only");
        try (TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            Path config = work.resolve("fencegate.yaml");
            Files.writeString(config, yaml);
            // The page's hosts and passwords are placeholders: the test's own schema replaces them, as an operator's would.
            Map<String, String> env = Map.of(
                    "FENCEGATE_ISSUER_URL", db.url(), "FENCEGATE_ISSUER_USER", db.user(), "FENCEGATE_ISSUER_PASSWORD", "unused",
                    "FENCEGATE_STORES_MAIN_HOST", "127.0.0.1", "FENCEGATE_STORES_MAIN_DATABASE", "test",
                    "FENCEGATE_STORES_MAIN_SCHEMA", db.name, "FENCEGATE_STORES_MAIN_USER", db.user(),
                    "FENCEGATE_STORES_MAIN_PASSWORD", "unused");
            try (GatewayProcess a = FencegateScript.launch(work, env, "serve", "--config", config.toString(), "--port", "0");
                    GatewayProcess b = FencegateScript.launch(work, env, "serve", "--config", config.toString(), "--port", "0")) {
                a.awaitReady(120);
                b.awaitReady(120);
                for (GatewayProcess gw : List.of(a, b)) {
                    assertThat(gw.output()).as("started on the SQL issuer").contains("SQL jdbc:postgresql://");
                }
                walkthrough(a, true);
                walkthrough(b, false);
                String urls = a.uri().toString().replaceAll("/$", "") + "," + b.uri().toString().replaceAll("/$", "");
                for (String workload : List.of("counter", "lock-set", "mutex")) {
                    Path out = work.resolve("check-" + workload);
                    int exit = CheckCommand.execute("--url", urls, "--workload", workload, "--seconds", "8",
                            "--clients", "4", "--out", out.toString());
                    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
                    assertThat(summary.get("violationCount").asInt()).as(workload + ": " + summary).isZero();
                    assertThat(summary.get("ok").asLong()).as(workload + " acknowledged operations").isPositive();
                    assertThat(exit).as(workload + ": " + summary).isEqualTo(Report.VALID);
                }
            }
        } finally {
            try (var all = Files.walk(work)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The YAML block between the markers of docs/production.md. */
    private static String documentedConfig() throws Exception {
        String page = Files.readString(FencegateScript.repoRoot().resolve("docs/production.md"));
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        assertThat(begin).as("docs/production.md marks its PostgreSQL-only config").isPositive();
        String block = page.substring(begin + BEGIN.length(), end);
        return block.substring(block.indexOf("```yaml") + "```yaml".length(), block.lastIndexOf("```")).strip() + "\n";
    }

    /** README's walkthrough (examples/curl/walkthrough.sh, which WalkthroughIT holds to README) through one gateway. */
    private static void walkthrough(GatewayProcess gw, boolean firstWrite) throws Exception {
        Path script = FencegateScript.repoRoot().resolve("examples/curl/walkthrough.sh");
        ProcessBuilder bash = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true);
        bash.environment().put("FENCEGATE", gw.uri().toString().replaceAll("/$", ""));
        Process run = bash.start();
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(run.exitValue()).as(out).isZero();
        assertThat(out.lines()).as(out)
                .anyMatch(l -> l.startsWith("{\"applied\":true,") && (!firstWrite || l.contains("\"previousToken\":0")))
                .contains("A reads: 1", "B reads: 1", "stock: 0")
                .anyMatch(l -> l.contains("urn:fencegate:problem:stale") && l.endsWith(" -> 409"));
    }
}
