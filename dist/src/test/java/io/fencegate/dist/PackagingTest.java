package io.fencegate.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.GatewayConfig;
import io.fencegate.issuer.zookeeper.provider.ZooKeeperIssuerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** packaging/: the systemd unit, the Kubernetes manifests and the alert rules are valid and fit together. */
class PackagingTest {
    private static final Path PACKAGING = ReleaseArchiveIT.repoRoot().resolve("packaging");
    private static final YAMLMapper YAML = new YAMLMapper();

    private static String run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
        return out;
    }

    @Test
    void systemdUnitPassesSystemdAnalyzeVerify() throws Exception {
        // verify wants ExecStart's program to exist: point it at the launcher in this checkout.
        Path launcher = ReleaseArchiveIT.repoRoot().resolve("dist/src/main/dist/bin/fencegate");
        String unit = Files.readString(PACKAGING.resolve("systemd/fencegate.service"));
        assertThat(unit).contains("ExecStart=/opt/fencegate/bin/fencegate serve --config /etc/fencegate/fencegate.yaml",
                "SuccessExitStatus=143", "User=fencegate");
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "systemd");
        Path copy = dir.resolve("fencegate.service");
        Files.writeString(copy, unit.replace("/opt/fencegate/bin/fencegate", launcher.toString()));
        String out = run(dir, "systemd-analyze", "verify", copy.toString());
        assertThat(out.lines().filter(l -> l.contains("fencegate.service"))).as(out).isEmpty();
    }

    @Test
    void alertRulesPassPromtoolCheckAndTheirUnitTests() throws Exception {
        Path dir = PACKAGING.resolve("monitoring");
        assertThat(run(dir, "promtool", "check", "rules", "fencegate-alerts.yaml")).contains("SUCCESS: 6 rules found");
        assertThat(run(dir, "promtool", "test", "rules", "fencegate-alerts.test.yaml")).contains("SUCCESS");
        assertThat(String.join("\n", MonitoredMetrics.alertExpressions()))
                .contains("outcome=\"stale\"", "status=\"503\"", "status=\"410\"", "quantile=\"0.99\"", "up{");
        assertThat(MonitoredMetrics.queried()).as("ReleaseArchiveIT checks these against a live scrape")
                .contains("fencegate_writes_total", "fencegate_fenced_reads_total", "fencegate_leases_total",
                        "fencegate_http_requests_seconds", "fencegate_http_requests_seconds_count");
    }

    @Test
    void kubernetesManifestsAreADeploymentOfTwoOrMoreWithProbesBudgetConfigSecretAndService() throws Exception {
        Map<String, JsonNode> byKind = new HashMap<>();
        for (String file : List.of("configmap.yaml", "secret.yaml", "deployment.yaml", "pdb.yaml", "service.yaml")) {
            JsonNode doc = YAML.readTree(PACKAGING.resolve("kubernetes").resolve(file).toFile());
            assertThat(doc.path("apiVersion").asText()).as(file).isNotEmpty();
            assertThat(doc.path("metadata").path("name").asText()).as(file).isEqualTo("fencegate");
            byKind.put(doc.path("kind").asText(), doc);
        }
        assertThat(byKind).containsOnlyKeys("ConfigMap", "Secret", "Deployment", "PodDisruptionBudget", "Service");

        JsonNode deployment = byKind.get("Deployment");
        JsonNode spec = deployment.path("spec");
        int replicas = spec.path("replicas").asInt();
        assertThat(replicas).isGreaterThanOrEqualTo(2);
        JsonNode podLabels = spec.path("template").path("metadata").path("labels");
        assertThat(spec.path("selector").path("matchLabels")).isEqualTo(podLabels);
        JsonNode pod = spec.path("template").path("spec");
        assertThat(pod.path("terminationGracePeriodSeconds").asInt()).as("longer than the 30 s drain").isGreaterThan(30);
        assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
        JsonNode container = pod.path("containers").get(0);
        assertThat(container.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/health");
        assertThat(container.path("startupProbe").path("httpGet").path("path").asText()).isEqualTo("/health");
        assertThat(container.has("livenessProbe")).isTrue();
        assertThat(container.path("envFrom").get(0).path("secretRef").path("name").asText()).isEqualTo("fencegate");
        String portName = container.path("ports").get(0).path("name").asText();
        assertThat(container.path("ports").get(0).path("containerPort").asInt()).isEqualTo(8080);
        assertThat(pod.path("volumes").findValuesAsText("name")).contains("config");
        assertThat(pod.path("volumes").findPath("configMap").path("name").asText()).isEqualTo("fencegate");
        assertThat(container.path("volumeMounts").findValuesAsText("mountPath")).contains("/etc/fencegate");

        JsonNode pdb = byKind.get("PodDisruptionBudget").path("spec");
        assertThat(pdb.path("selector").path("matchLabels")).isEqualTo(podLabels);
        assertThat(pdb.path("minAvailable").asInt()).isBetween(1, replicas - 1);

        JsonNode service = byKind.get("Service").path("spec");
        assertThat(service.path("selector")).isEqualTo(podLabels);
        assertThat(service.path("ports").get(0).path("targetPort").asText()).isEqualTo(portName);

        // The ConfigMap's fencegate.yaml loads, with the Secret's variables as environment overrides.
        Map<String, String> env = new HashMap<>();
        byKind.get("Secret").path("stringData").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        assertThat(env).isNotEmpty().allSatisfy((k, v) -> assertThat(k).startsWith("FENCEGATE_"));
        GatewayConfig config = ConfigLoader.parse(byKind.get("ConfigMap").path("data").path("fencegate.yaml").asText(), env);
        assertThat(config.issuer()).isInstanceOf(ZooKeeperIssuerConfig.class);
        assertThat(config.server().host()).isEqualTo("0.0.0.0");
        assertThat(config.auth().keys()).as("a non-loopback gateway needs API keys").isNotEmpty();
        io.fencegate.gateway.config.Defaults.options(config).validate();
    }
}
