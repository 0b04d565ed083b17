package io.fencegate.gateway.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README's curl walkthrough, taken from README.md as printed and run with bash against
 * {@code fencegate serve} on its embedded default: the paused holder's sale is refused.
 */
class WalkthroughIT {

    /** README's Java client example, verbatim between the markers, after restocking the widget. */
    private static WriteOutcome readmeClientExample(String url) {
        FencegateClient restock = FencegateClient.builder(url).build();
        Lease first = restock.acquire("main/stock/widget", Duration.ofSeconds(10), Duration.ofSeconds(5)).orElseThrow();
        restock.put("main", "stock/widget", first.token(), "1".getBytes(UTF_8));
        restock.release(first.leaseId());
        WriteOutcome result = null;
        // --- README
        FencegateClient client = FencegateClient.builder(url).build();
        Lease lease = client.acquire("main/stock/widget", Duration.ofSeconds(10), Duration.ofSeconds(5)).orElseThrow();
        ReadOutcome read = client.get("main", "stock/widget", lease.token());          // fenced read: claims the item
        if (read instanceof ReadOutcome.Value v && Integer.parseInt(new String(v.bytes(), UTF_8)) > 0) {
            WriteOutcome sold = client.put("main", "stock/widget", lease.token(), "0".getBytes(UTF_8));
            if (sold instanceof Stale stale) { /* a newer holder claimed it: our lease is gone, stop */ }
            result = sold;
        }
        client.release(lease.leaseId());
        // --- end
        return result;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void readmeWalkthroughRunsAsPrinted() throws Exception {
        String readme = Files.readString(Path.of("../../README.md"));
        int begin = readme.indexOf("<!-- walkthrough:begin -->");
        int end = readme.indexOf("<!-- walkthrough:end -->");
        assertThat(begin).isPositive();
        String block = readme.substring(begin, end);
        String script = block.substring(block.indexOf("```bash") + "```bash".length(), block.lastIndexOf("```"));

        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "walkthrough");
        try (GatewayProcess gw = GatewayProcess.start(work, "serve", "--port", "0", "--data", "data").awaitReady(90)) {
            Path file = work.resolve("walkthrough.sh");
            Files.writeString(file, script);
            ProcessBuilder bash = new ProcessBuilder("bash", "-euo", "pipefail", file.toString()).redirectErrorStream(true);
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
