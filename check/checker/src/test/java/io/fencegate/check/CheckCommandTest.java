package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input exits 2 ("proved nothing") with a message naming the option, before any client runs; a saved run is judged again. */
class CheckCommandTest {

    private static String errorOf(String... args) {
        PrintStream old = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertThat(CheckCommand.execute(args)).isEqualTo(Report.PROVED_NOTHING);
        } finally {
            System.setErr(old);
        }
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void unknownWorkloadExitsTwoNamingTheOption() {
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "ledger")).contains("--workload").contains("ledger");
    }

    @Test
    void bankAccountsBeyondALeaseGroupOrOnAnotherWorkloadExitTwoNamingTheOption() {
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "bank", "--accounts", "9")).contains("--accounts").contains("9");
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "bank", "--accounts", "1")).contains("--accounts");
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "counter", "--accounts", "3")).contains("--accounts");
    }

    @Test
    void semaphorePermitsOutOfRangeOrOnAnotherWorkloadExitTwoNamingTheOption() {
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "semaphore", "--permits", "0")).contains("--permits");
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "semaphore", "--permits", "65")).contains("--permits").contains("65");
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "rw", "--permits", "3")).contains("--permits");
    }

    @Test
    void bypassControlWithoutDatabaseExitsTwoNamingTheOption() {
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "counter", "--control", "bypass-guard"))
                .contains("--bypass-jdbc-url");
    }

    @Test
    void overGrantControlOnAWorkloadWithoutPermitsExitsTwoNamingTheOption() {
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "counter", "--control", "over-grant"))
                .contains("--control over-grant").contains("semaphore");
    }

    @Test
    void ttlBelowTheGatewayMinimumExitsTwo() {
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "mutex", "--ttl-ms", "50")).contains("--ttl-ms");
    }

    @Test
    void missingUrlExitsTwo() {
        assertThat(errorOf("--workload", "counter")).contains("--url");
    }

    /** A saved mutex history with one double grant. */
    private static Path savedHistory(Path dir) throws Exception {
        History h = new History();
        h.add(new Op(1, Op.ACQUIRE, "m", 5, "1000", 0, 0, 1_000, Outcome.OK, "", "http://127.0.0.1:18081/"));
        h.add(new Op(2, Op.ACQUIRE, "m", 6, "1000", 0, 100_000, 101_000, Outcome.OK, "", "http://127.0.0.1:18081/"));
        Path file = dir.resolve("history.json");
        h.write(file);
        return file;
    }

    @Test
    void savedHistoryIsJudgedAgainWithoutAnyGateway(@TempDir Path dir) throws Exception {
        Path file = savedHistory(dir);
        int exit = CheckCommand.execute("--history", file.toString(), "--workload", "mutex", "--out", dir.resolve("again").toString());
        assertThat(exit).isEqualTo(Report.VIOLATIONS);
        assertThat(Files.readString(dir.resolve("again").resolve("summary.json"))).contains("two-live-leases");
    }

    @Test
    void savedHistoryNamesItsOwnWorkload(@TempDir Path dir) throws Exception {
        History h = new History().describe("mutex", "none");
        h.addAll(History.read(savedHistory(dir)));
        h.write(dir.resolve("named.json"));
        assertThat(CheckCommand.execute("--history", dir.resolve("named.json").toString(), "--out", dir.resolve("o").toString()))
                .isEqualTo(Report.VIOLATIONS);
    }

    @Test
    void savedHistoryWithoutItsWorkloadNeedsTheOption(@TempDir Path dir) throws Exception {
        assertThat(errorOf("--history", savedHistory(dir).toString(), "--out", dir.resolve("o").toString())).contains("--workload");
    }

    @Test
    void historyAndUrlTogetherAreRefused(@TempDir Path dir) throws Exception {
        assertThat(errorOf("--history", savedHistory(dir).toString(), "--url", "http://127.0.0.1:1")).contains("--url");
    }

    @Test
    void judgingASavedRunAgainPrintsTheSameTables(@TempDir Path dir) throws Exception {
        History h = new History().describe("mutex", "none");
        h.addAll(History.read(savedHistory(dir)));
        h.addFault(new Fault("zk-session-expiry", 20_000, 60_000, "", "http://127.0.0.1:18082/", true));
        Report.Summary first = Report.summarize(Checker.check(Workload.MUTEX, h.ops(), h.faults()), Control.NONE, h.ops(), h.faults());
        Report.write(dir.resolve("run"), h, first);
        PrintStream old = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            assertThat(CheckCommand.execute("--history", dir.resolve("run").resolve("history.json").toString(),
                    "--out", dir.resolve("again").toString())).isEqualTo(first.exitCode());
        } finally {
            System.setOut(old);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).startsWith(Report.tables(first));
        assertThat(Files.readString(dir.resolve("again").resolve("summary.json")))
                .isEqualTo(Files.readString(dir.resolve("run").resolve("summary.json")));
    }
}
