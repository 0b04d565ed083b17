package io.fencegate.check.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.check.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The bounded profile CI runs: each deployment (its own processes: a 3-server ZooKeeper ensemble, a
 * redis-server, or none besides the database for the sql issuer; its own PostgreSQL or MariaDB
 * server, pgbouncer for sql-postgres, two gateways, client processes) runs every
 * workload under faults, a database crash-restart among them, with no violation, and its controls
 * show at least one each. For CI's time the counter's two controls are split between the two
 * deployments on a Postgres store (plain reads on zk-postgres, the bypassed guard on sql-postgres);
 * redis-mariadb runs both on MariaDB's store, sql-mariadb both of the bank's. So each deployment
 * still shows that its own histories can fail the checker, and each control runs against each store.
 */
class BoundedProfileIT {
    private static final int PHASE_SECONDS = 12;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void zooKeeperAndPostgresUnderFaultsHaveNoViolationsWhileControlsFail() throws Exception {
        runBounded("zk-postgres", List.of("plain-reads"));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void redisAndMariaDbUnderFaultsHaveNoViolationsWhileControlsFail() throws Exception {
        runBounded("redis-mariadb", BOTH);
    }

    /** The sql issuer on its own PostgreSQL, the second gateway through pgbouncer in transaction mode. */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void sqlIssuerOnPostgresAndPgbouncerUnderFaultsHasNoViolationsWhileControlsFail() throws Exception {
        runBounded("sql-postgres", List.of("bypass-guard"));
    }

    /**
     * The bank here in the counter's place (for CI's time: the counter and its controls run on the
     * three other deployments): transfers in transactions under the same faults, and its controls.
     */
    @Test
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void sqlIssuerOnMariaDbUnderFaultsHasNoViolationsWhileControlsFail() throws Exception {
        runBounded("sql-mariadb", BOTH, "lock-set", "mutex", "bank");
    }

    private static final List<String> BOTH = List.of("plain-reads", "bypass-guard");

    private static void runBounded(String backend, List<String> controlNames, String... workloads) throws Exception {
        List<String> expected = workloads.length == 0 ? NemesisCommand.DEFAULT_WORKLOADS : List.of(workloads);
        // Open to others (rwxr-xr-x): the database servers run as the postgres and mysql users.
        Path out = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "nemesis-" + backend,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        NemesisCommand command = new NemesisCommand();
        int exit = new CommandLine(command).execute("--profile", "bounded", "--backends", backend, "--workload",
                String.join(",", expected), "--seconds", Integer.toString(PHASE_SECONDS), "--controls", String.join(",", controlNames),
                "--out", out.toString());
        Path summary = out.resolve("summary.md");
        assertThat(summary).as("the harness wrote no summary (exit " + exit + "); its reasons are on stderr above").exists();
        String table = Files.readString(summary);
        assertThat(table).as("the harness itself failed").doesNotContain("the harness failed");
        List<NemesisCommand.Result> honest = command.results.stream().filter(r -> r.summary().control().equals("none")).toList();
        List<NemesisCommand.Result> controls = command.results.stream().filter(r -> !r.summary().control().equals("none")).toList();

        assertThat(honest).as(table).extracting(r -> r.summary().workload()).containsExactlyElementsOf(expected);
        for (NemesisCommand.Result r : honest) {
            assertThat(r.summary().violationCount()).as(r.name() + "\n" + table).isZero();
            assertThat(r.summary().ok()).as(r.name() + " acknowledged operations\n" + table).isPositive();
        }
        long faults = honest.stream().flatMap(r -> r.summary().faults().stream())
                .filter(f -> !f.name().equals("(no fault)")).mapToLong(Report.Row::injected).sum();
        assertThat(faults).as("faults injected during the workloads\n" + table).isGreaterThanOrEqualTo(3);
        long crashes = honest.stream().flatMap(r -> r.summary().faults().stream())
                .filter(f -> f.name().equals("db-crash-restart")).mapToLong(Report.Row::injected).sum();
        assertThat(crashes).as("database crash-restarts during the workloads\n" + table).isPositive();
        String controlled = expected.contains("bank") ? "bank" : "counter"; // NemesisCommand.controlled
        assertThat(controls).as(table).extracting(r -> r.summary().workload()).containsOnly(controlled);
        assertThat(controls).as(table).extracting(r -> r.summary().control()).containsExactlyElementsOf(controlNames);
        for (NemesisCommand.Result r : controls) {
            assertThat(r.summary().violationCount()).as(r.name() + " must show the anomaly\n" + table).isPositive();
        }
        assertThat(exit).as(table).isEqualTo(Report.VALID);
    }
}
