package io.fencegate.check.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.check.Control;
import io.fencegate.check.Report;
import io.fencegate.check.Workload;
import io.fencegate.spi.ClaimRefusedException;
import io.fencegate.spi.LocalClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** How the harness judges a set of runs, and bad input refused before anything starts. */
class NemesisCommandTest {

    private static NemesisCommand.Result result(String control, int exitCode) {
        return new NemesisCommand.Result("zk-postgres", control,
                new Report.Summary("counter", control, exitCode, "", 1, 1, 0, 0, 0, 0, List.of(), List.of(), List.of()));
    }

    @Test
    void validWhenHonestRunsAreValidAndEveryControlFails() {
        assertThat(NemesisCommand.exitCode(List.of(result("none", 0), result("plain-reads", 1), result("bypass-guard", 1))))
                .isEqualTo(Report.VALID);
    }

    @Test
    void controlWithoutAnomalyMakesTheRunProveNothing() {
        assertThat(NemesisCommand.exitCode(List.of(result("none", 0), result("plain-reads", 2)))).isEqualTo(Report.PROVED_NOTHING);
    }

    @Test
    void violationInAnHonestRunWinsOverEverythingElse() {
        assertThat(NemesisCommand.exitCode(List.of(result("none", 1), result("plain-reads", 2), result("none", 2))))
                .isEqualTo(Report.VIOLATIONS);
    }

    @Test
    void everyBackendIsNamedOnTheCommandLineByItsLabel() {
        assertThat(Deployment.Backend.values()).extracting(Deployment.Backend::label)
                .containsExactly("zk-postgres", "redis-mariadb", "sql-postgres", "sql-mariadb");
        for (Deployment.Backend b : Deployment.Backend.values()) {
            assertThat(Deployment.Backend.parse(b.label())).isEqualTo(b);
        }
    }

    @Test
    void aSecondRunOnOneOutFolderIsRefusedBeforeItStartsAnyServer(@TempDir Path out) throws Exception {
        Path deployment = out.resolve("zk-postgres").resolve("deployment");
        try (LocalClaim first = NemesisCommand.claimDeployment(deployment)) {
            NemesisCommand second = new NemesisCommand();
            second.out = out;
            assertThatThrownBy(() -> second.runBackend(Deployment.Backend.ZK_POSTGRES, 1, 100))
                    .isInstanceOf(ClaimRefusedException.class)
                    .hasMessageStartingWith("nemesis deployment directory " + deployment.toRealPath()
                            + " is in use by another fencegate (pid " + ProcessHandle.current().pid());
            try (var left = Files.list(deployment)) {
                assertThat(left.map(p -> p.getFileName().toString())).containsExactly(LocalClaim.LOCK_NAME);
            }
        }
    }

    @Test
    void controlsBreakTheCounterAndTheBankAmongTheWorkloadsChosen() {
        assertThat(NemesisCommand.controlled(List.of(Workload.COUNTER, Workload.LOCK_SET, Workload.MUTEX))).containsExactly(Workload.COUNTER);
        assertThat(NemesisCommand.controlled(List.of(Workload.BANK))).containsExactly(Workload.BANK);
        assertThat(NemesisCommand.controlled(List.of(Workload.MUTEX))).containsExactly(Workload.COUNTER);
        assertThat(NemesisCommand.controlled(List.of(Workload.RW, Workload.MUTEX, Workload.SEMAPHORE)))
                .containsExactly(Workload.RW, Workload.SEMAPHORE);
        assertThat(NemesisCommand.controlName(Workload.RW, Control.BYPASS_GUARD)).isEqualTo("rw control bypass-guard");
        assertThat(NemesisCommand.controlName(Workload.BANK, Control.PLAIN_READS)).isEqualTo("bank control plain-reads");
        assertThat(NemesisCommand.controlName(Workload.COUNTER, Control.PLAIN_READS)).isEqualTo("control plain-reads");
    }

    @Test
    void theSemaphoreAloneIsAlsoRunWithOnePermitTooMany() {
        assertThat(NemesisCommand.controlsOf(Workload.SEMAPHORE))
                .containsExactly(Control.PLAIN_READS, Control.BYPASS_GUARD, Control.OVER_GRANT);
        for (Workload w : List.of(Workload.COUNTER, Workload.BANK, Workload.RW)) {
            assertThat(NemesisCommand.controlsOf(w)).as(w.label()).containsExactly(Control.PLAIN_READS, Control.BYPASS_GUARD);
        }
        assertThat(NemesisCommand.controlName(Workload.SEMAPHORE, Control.OVER_GRANT)).isEqualTo("semaphore control over-grant");
    }

    @Test
    void theTablesOfAFinishedRunIncludeItsOverGrantControl(@TempDir Path out) throws Exception {
        Path run = out.resolve("sql-postgres").resolve("semaphore-control-over-grant");
        Files.createDirectories(run);
        Files.writeString(run.resolve("summary.json"), "{\"workload\":\"semaphore\",\"control\":\"over-grant\",\"exitCode\":1,"
                + "\"verdict\":\"3 VIOLATIONS\",\"ops\":5,\"ok\":5,\"violationCount\":3}");
        assertThat(NemesisCommand.readResults(out)).extracting(NemesisCommand.Result::name).containsExactly("semaphore control over-grant");
    }

    @Test
    void unknownOrRepeatedWorkloadIsRefusedBeforeAnythingStarts() {
        assertThat(new CommandLine(new NemesisCommand()).execute("--workload", "ledger")).isEqualTo(Report.PROVED_NOTHING);
        assertThat(new CommandLine(new NemesisCommand()).execute("--workload", "bank,bank")).isEqualTo(Report.PROVED_NOTHING);
    }

    @Test
    void unknownRepeatedOrHonestControlIsRefusedBeforeAnythingStarts() {
        assertThat(new CommandLine(new NemesisCommand()).execute("--controls", "skip-fence")).isEqualTo(Report.PROVED_NOTHING);
        assertThat(new CommandLine(new NemesisCommand()).execute("--controls", "plain-reads,plain-reads")).isEqualTo(Report.PROVED_NOTHING);
        assertThat(new CommandLine(new NemesisCommand()).execute("--controls", "none")).isEqualTo(Report.PROVED_NOTHING);
    }

    @Test
    void unknownBackendIsRefusedBeforeAnythingStarts() {
        assertThat(new CommandLine(new NemesisCommand()).execute("--backends", "etcd")).isEqualTo(Report.PROVED_NOTHING);
    }
}
