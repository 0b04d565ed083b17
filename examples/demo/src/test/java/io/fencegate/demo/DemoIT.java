package io.fencegate.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fencegate demo} exactly as README runs it: the launcher, the demo's runtime classpath,
 * real buyer processes, a real SIGSTOP. The controls (modes 1, 2) must show the anomaly; fencegate
 * (modes 3, 4) must be exact. {@code FENCEGATE_NO_BUILD} keeps the launcher from running Maven
 * inside this Maven build, which has just built the classes.
 */
class DemoIT {
    @TempDir
    Path dir;

    record Run(int exit, String output, Map<String, Map<String, String>> modes) {}

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onTheEmbeddedDefaultLockOnlyAndGuardedWritesOversellWhileFencedReadsAndGuardRowsAreExact() throws Exception {
        Run run = demo();
        assertControlsFailAndFencegateIsExact(run);
        String svg = Files.readString(dir.resolve("demo.svg"));
        assertThat(svg).startsWith("<svg").contains("lock only", "exact").endsWith("</svg>\n");
        assertThat(run.output()).contains("orders  sold/stock  stock left  stale refused  lost updates",
                "store: H2", "issuer: ZooKeeper (the gateway's embedded server)");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onPostgresWithTheRedisIssuerAndASetNxLockTheSameHolds() throws Exception {
        Run run = demo("--store", "postgres", "--issuer", "redis");
        assertControlsFailAndFencegateIsExact(run);
        assertThat(run.output()).contains("store: PostgreSQL", "issuer: Redis", "mode 1 lock: Redis SET NX PX");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onMariaDbWithZooKeeperTheSameHolds() throws Exception {
        Run run = demo("--store", "mariadb", "--issuer", "zookeeper");
        assertControlsFailAndFencegateIsExact(run);
        assertThat(run.output()).contains("store: MariaDB", "issuer: ZooKeeper (a server of the demo's own");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onTheSqlIssuerAloneTheSameHolds() throws Exception {
        Run run = demo("--issuer", "sql");
        assertControlsFailAndFencegateIsExact(run);
        assertThat(run.output()).contains("store: H2", "issuer: SQL (leases in the store's database, H2 ",
                "mode 1 lock: a gateway lease, token ignored");
    }

    /**
     * Not the default 127.0.0.1/test: the demo goes where --jdbc-url says, the store follows the URL,
     * and the sql issuer keeps its leases in that same database. (One run for both, for CI's time: the
     * store and the issuer are chosen independently, and PostgreSQL with the other issuers runs above.)
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aJdbcUrlChoosesTheDatabaseAndTheStoreAndTheSqlIssuerKeepsItsLeasesThere() throws Exception {
        Run run = demo("--jdbc-url", "jdbc:postgresql://localhost:5432/test?connectTimeout=5", "--issuer", "sql");
        assertControlsFailAndFencegateIsExact(run);
        assertThat(run.output()).contains("store: PostgreSQL localhost:5432/test, schema fg_demo_")
                .contains("issuer: SQL (leases in the store's database, localhost:5432/test)")
                .contains("chart: " + dir.resolve("demo.svg").toAbsolutePath() + " · numbers: "
                        + dir.resolve("results.tsv").toAbsolutePath());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void badFlagsAreRefusedWithAClearErrorAndStartNothing() throws Exception {
        Run url = demo("--jdbc-url", "jdbc:oracle:thin:@db");
        assertThat(url.exit()).isEqualTo(2);
        assertThat(url.output()).contains("--jdbc-url: expected jdbc:postgresql://... or jdbc:mariadb://..., got 'jdbc:oracle:thin:@db'");
        Run mismatch = demo("--store", "mariadb", "--jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test");
        assertThat(mismatch.exit()).isEqualTo(2);
        assertThat(mismatch.output()).contains("--jdbc-url: a postgres URL, but --store is mariadb");
        Run store = demo("--store", "oracle");
        assertThat(store.exit()).isEqualTo(2);
        assertThat(store.output()).contains("--store", "oracle", "h2, postgres, mariadb");
        Run buyers = demo("--buyers", "1");
        assertThat(buyers.exit()).isEqualTo(2);
        assertThat(buyers.output()).contains("--buyers: expected 2 to 6, got 1");
        assertThat(dir.resolve("demo.svg")).doesNotExist();
    }

    /**
     * A pause far past the whole sale: the other buyer has sold out and written before the frozen
     * one wakes, so mode 2's stale write is refused and mode 2 shows nothing. The demo must rerun it
     * with a longer pause, report every run, and exit 1 rather than print a clean table.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aControlWithoutAnomalyIsRerunWithALongerPauseAndReportedNeverHidden() throws Exception {
        Run run = demo("--buyers", "2", "--stock", "3", "--pause-ms", "2500");
        assertThat(run.exit()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains(
                "no anomaly this run (the pause missed the window): running mode 2 again, pause at least 5000 ms",
                "running mode 2 again, pause at least 10000 ms",
                "no anomaly in 3 runs of mode 2: reported as is.",
                "NOT AS EXPECTED");
        assertThat(run.modes().get("2")).containsEntry("exact", "true").containsEntry("attempt", "3");
        assertThat(run.modes().get("1")).containsEntry("exact", "false").containsEntry("attempt", "1");
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aDemoStoppedWhileABuyerIsFrozenLeavesNoProcessBehind() throws Exception {
        Process demo = launch("--store", "postgres").redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        List<ProcessHandle> children = List.of();
        while (children.stream().noneMatch(DemoIT::stopped)) {
            assertThat(demo.isAlive()).as("the demo ended before it froze a buyer").isTrue();
            children = demo.toHandle().descendants().toList();
            Thread.sleep(20);
        }
        demo.destroy(); // SIGTERM, as a service manager or Ctrl-C would stop it
        assertThat(demo.waitFor(30, TimeUnit.SECONDS)).isTrue();
        for (ProcessHandle child : children) {
            assertThat(child.onExit().get(15, TimeUnit.SECONDS).isAlive()).as("pid %d", child.pid()).isFalse();
        }
    }

    /** State T in /proc/{pid}/stat: stopped by a signal (the demo's SIGSTOP). */
    private static boolean stopped(ProcessHandle process) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
        } catch (IOException gone) {
            return false;
        }
    }

    private static void assertControlsFailAndFencegateIsExact(Run run) {
        assertThat(run.exit()).as(run.output()).isZero();
        for (String control : List.of("1", "2")) {
            Map<String, String> m = run.modes().get(control);
            assertThat(m.get("exact")).as("mode %s must show the anomaly: %s", control, run.output()).isEqualTo("false");
            assertThat(Integer.parseInt(m.get("lost_updates")) + Integer.parseInt(m.get("oversold"))).isPositive();
        }
        for (String fenced : List.of("3", "4")) {
            Map<String, String> m = run.modes().get(fenced);
            assertThat(m.get("exact")).as("mode %s must be exact: %s", fenced, run.output()).isEqualTo("true");
            assertThat(m.get("orders")).isEqualTo(m.get("stock"));
            assertThat(m.get("stock_left")).isEqualTo("0");
            assertThat(m.get("lost_updates")).isEqualTo("0");
            // The paused buyer woke and wrote: fencegate refused it rather than it never trying.
            assertThat(Integer.parseInt(m.get("stale_refused"))).isPositive();
        }
    }

    private Run demo(String... flags) throws Exception {
        Process process = launch(flags).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), output, results());
    }

    private ProcessBuilder launch(String... flags) {
        List<String> command = new ArrayList<>(List.of(repoRoot().resolve("fencegate").toString(), "demo",
                "--chart", dir.resolve("demo.svg").toString(), "--results", dir.resolve("results.tsv").toString()));
        command.addAll(List.of(flags));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("FENCEGATE_"));
        builder.environment().put("FENCEGATE_NO_BUILD", "1");
        return builder;
    }

    private Map<String, Map<String, String>> results() throws IOException {
        Path tsv = dir.resolve("results.tsv");
        if (!Files.exists(tsv)) {
            return Map.of();
        }
        List<String> lines = Files.readAllLines(tsv);
        String[] header = lines.get(0).split("\t");
        return lines.stream().skip(1).map(line -> line.split("\t")).collect(Collectors.toMap(cells -> cells[0], cells -> {
            Map<String, String> row = new java.util.HashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], cells[i]);
            }
            return row;
        }));
    }

    /** The checkout's root: the nearest folder up from here that holds the launcher. */
    private static Path repoRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("fencegate")) && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException("no ./fencegate launcher above " + Path.of("").toAbsolutePath());
    }
}
