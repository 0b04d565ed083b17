package io.fencegate.check.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.check.Report;
import java.util.List;
import org.junit.jupiter.api.Test;
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
    void unknownBackendIsRefusedBeforeAnythingStarts() {
        assertThat(new CommandLine(new NemesisCommand()).execute("--backends", "etcd")).isEqualTo(Report.PROVED_NOTHING);
    }
}
