package io.fencegate.examples.files;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.ExampleProcess;
import io.fencegate.store.Found;
import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.store.files.FilesStoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two runs of the job as processes over one reports directory: the first is frozen (SIGSTOP) while
 * computing, past its lease's ttl; the second takes over and writes; the first wakes (SIGCONT) and is
 * refused. The newer report stays.
 */
class NightlyReportIT {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void staleRunCannotOverwriteANewerReport() throws Exception {
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "reports");
        String main = NightlyReport.class.getName();
        try (TestingServer zookeeper = new TestingServer(true)) {
            String zk = zookeeper.getConnectString();
            try (ExampleProcess stalled = ExampleProcess.program(main, dir.toString(), zk, "2026-11-22", "1000", "1000")) {
                Matcher first = stalled.awaitLine(Pattern.compile("run with token (\\d+) computing the report for 2026-11-22"), 60);
                stalled.signal("STOP");
                long newerToken;
                try (ExampleProcess newer = ExampleProcess.program(main, dir.toString(), zk, "2026-11-22", "100", "1000")) {
                    assertThat(newer.awaitExit(60)).as("%s", newer.seen).isZero();
                    newerToken = Long.parseLong(newer.awaitLine(
                            Pattern.compile("written reports/2026-11-22.txt with token (\\d+) \\(replacing token 0\\)"), 1).group(1));
                } finally {
                    stalled.signal("CONT");
                }
                assertThat(newerToken).isGreaterThan(Long.parseLong(first.group(1)));
                assertThat(stalled.awaitExit(60)).as("%s", stalled.seen).isEqualTo(3);
                assertThat(stalled.seen).contains("refused: a newer run (token " + newerToken + ") has written the report; it stays as it is");
            }
            try (FilesGuardedStore store = FilesGuardedStore.open(new FilesStoreOptions().root(dir).name("reports"))) {
                Found report = (Found) store.read("reports/2026-11-22.txt").toCompletableFuture().join();
                assertThat(new String(report.value(), UTF_8)).contains("written by the run with token " + report.token());
            }
        } finally {
            try (var all = Files.walk(dir)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
