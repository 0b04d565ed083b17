package io.fencegate.gateway.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.WriteOutcome;
import io.fencegate.testing.GatewayProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README's curl walkthrough, {@code examples/curl/walkthrough.sh} (README shows it as it is), run
 * with bash against {@code fencegate serve} on its embedded default: the paused holder's sale is refused.
 */
class WalkthroughIT {

    /**
     * README's Java client example, verbatim between the markers (readmeJavaClientSnippetIsTheOneThatRuns
     * compares them), after restocking the widget.
     */
    private static WriteOutcome readmeClientExample(String url) {
        FencegateClient restock = FencegateClient.builder(url).build();
        Lease first = restock.acquire("main/stock/widget", Duration.ofSeconds(10), Duration.ofSeconds(5)).orElseThrow();
        restock.put("main", "stock/widget", first.token(), "1".getBytes(UTF_8));
        restock.release(first.leaseId());
        // --- README
        FencegateClient client = FencegateClient.builder(url).build();
        // withLease: acquire (waiting up to 5 s), renew at ttl/3 while the work runs, release however it ends
        Optional<WriteOutcome> sold = client.withLease("main/stock/widget", Duration.ofSeconds(10), Duration.ofSeconds(5), lease -> {
            lease.lost().thenAccept(reason -> System.err.println("lease lost: " + reason)); // told once: GONE, EXPIRED, RENEW_REFUSED
            ReadOutcome read = client.get("main", "stock/widget", lease.token());           // fenced read: claims the item
            if (read instanceof ReadOutcome.Value v && Integer.parseInt(new String(v.bytes(), UTF_8)) > 0 && lease.held()) {
                return client.put("main", "stock/widget", lease.token(), "0".getBytes(UTF_8)); // Applied, or Stale: stop
            }
            return null;
        });
        // --- end
        return sold.orElse(null);
    }

    @Test
    void readmeJavaClientSnippetIsTheOneThatRuns() throws Exception {
        String readme = Files.readString(FencegateScript.repoRoot().resolve("README.md"));
        int intro = readme.indexOf("From Java, through the gateway");
        assertThat(intro).as("README introduces its Java client snippet").isPositive();
        int from = readme.indexOf("```java", intro);
        String snippet = readme.substring(from + "```java".length(), readme.indexOf("```", from + 7)).strip();
        String source = Files.readString(FencegateScript.repoRoot()
                .resolve("gateway/gateway-server/src/test/java/io/fencegate/gateway/it/WalkthroughIT.java"));
        // README shows the imports the snippet needs; each is one this class compiles with.
        List<String> imports = snippet.lines().filter(l -> l.startsWith("import ")).toList();
        assertThat(imports).as("README's snippet shows its imports").isNotEmpty();
        assertThat(source.lines().toList()).containsAll(imports);
        String shown = snippet.lines().filter(l -> !l.startsWith("import ")).collect(Collectors.joining("\n")).strip();
        String run = source.substring(source.indexOf("// --- README\n") + "// --- README\n".length(),
                source.indexOf("        // --- end"));
        // The one difference: the test's gateway is on a random port.
        assertThat(run.lines().map(l -> l.replaceFirst("^        ", "")).collect(Collectors.joining("\n")).strip()
                .replace("builder(url)", "builder(\"http://127.0.0.1:8080\")")).isEqualTo(shown);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void readmeWalkthroughRunsAsPrinted() throws Exception {
        // The script is examples/curl/walkthrough.sh; README shows it, after its header, as it is.
        Path file = FencegateScript.repoRoot().resolve("examples/curl/walkthrough.sh");
        String readme = Files.readString(FencegateScript.repoRoot().resolve("README.md"));
        int begin = readme.indexOf("<!-- walkthrough:begin -->");
        int end = readme.indexOf("<!-- walkthrough:end -->");
        assertThat(begin).isPositive();
        assertThat(readme.substring(Math.max(0, begin - 200), begin)).contains("examples/curl/walkthrough.sh");
        String block = readme.substring(begin, end);
        String shown = block.substring(block.indexOf("```bash") + "```bash".length(), block.lastIndexOf("```")).strip();
        String script = Files.readString(file);
        assertThat(script.substring(script.indexOf("set -euo pipefail") + "set -euo pipefail".length()).strip())
                .as("README shows examples/curl/walkthrough.sh as it is").isEqualTo(shown);

        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "walkthrough");
        try (GatewayProcess gw = GatewayProcess.start(work, "serve", "--port", "0", "--data", "data").awaitReady(90)) {
            ProcessBuilder bash = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true);
            bash.environment().put("FENCEGATE", gw.uri().toString().replaceAll("/$", ""));
            Process run = bash.start();
            assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(run.exitValue()).as(out).isZero();
            assertThat(out.lines()).as(out)
                    .anyMatch(l -> l.startsWith("{\"applied\":true,") && l.contains("\"previousToken\":0"))
                    .contains("A reads: 1", "B reads: 1", "stock: 0")
                    .anyMatch(l -> l.contains("urn:fencegate:problem:stale") && l.endsWith(" -> 409"));
            assertThat(readmeClientExample(gw.uri().toString())).isInstanceOf(WriteOutcome.Applied.class);
        } finally {
            try (var all = Files.walk(work)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
