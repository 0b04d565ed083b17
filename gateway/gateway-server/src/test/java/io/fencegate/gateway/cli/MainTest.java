package io.fencegate.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What a user reads from {@code ./fencegate --help} and {@code ./fencegate version}. */
class MainTest {

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        cli.execute(args);
        return out + err.toString();
    }

    @Test
    void helpListsEveryCommandTheLauncherRunsWithOneLineEach() {
        String help = run("--help");
        assertThat(help).containsPattern("(?m)^  serve +Run the gateway \\(the embedded default without --config\\)\\.$")
                .containsPattern("(?m)^  hash-key +Make a new API key; print it once, with its config entry\\.$")
                .containsPattern("(?m)^  demo +The inventory-oversell demo, with and without fencing\\.$")
                .containsPattern("(?m)^  transfer +Money transfers: a plain lock vs a MultiLock and one transaction\\.$")
                .containsPattern("(?m)^  slot-workers +Workers on a fenced semaphore: a frozen worker's late writes are refused\\.$")
                .containsPattern("(?m)^  check +Check live gateways: run a workload, record it, judge the history\\.$")
                .containsPattern("(?m)^  nemesis +Run the check workloads under injected faults\\.$")
                .containsPattern("(?m)^  version +Print the version and the git commit it was built from\\.$")
                .contains("Run ./fencegate COMMAND --help for a command's options.")
                // one line each: no description wraps onto a line of its own
                .doesNotContainPattern("(?m)^ {5,}\\S");
    }

    @Test
    void everyCommandAnswersHelpWithItsOptions() {
        assertThat(run("serve", "--help")).contains("Usage: fencegate serve", "--config").doesNotContain("Unknown option");
        assertThat(run("hash-key", "--help")).contains("Usage: fencegate hash-key", "--name").doesNotContain("Unknown option");
        assertThat(run("version", "--help")).contains("Usage: fencegate version").doesNotContain("Unknown option");
    }

    @Test
    void helpNamesTheCommandAsTheLauncherWasCalled() {
        System.setProperty("fencegate.command", "bin/fencegate");
        try {
            assertThat(run("--help")).contains("Run bin/fencegate COMMAND --help for a command's options.");
        } finally {
            System.clearProperty("fencegate.command");
        }
    }

    @Test
    void versionNamesTheProjectVersionAndTheCommitFromTheBuild() {
        String version = BuildInfo.describe();
        assertThat(version).matches("fencegate \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit [0-9a-f]{7,40}\\)");
        assertThat(run("--version")).contains(version);
    }
}
