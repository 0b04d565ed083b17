package io.fencegate.clients.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.GatewayProcess;
import io.fencegate.testing.PythonVenv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Python package as a user gets it: the wheel this build made, installed with pip into a
 * virtual environment of the test's own, offline, and its unittest suite ({@code tests/}: the
 * README's quickstart, a holder paused with SIGSTOP, renewal while the main thread sleeps, release
 * on an exception, a retry with the same token, bad input, lease groups, transactions across items
 * and fenced multi-reads on the SQL (H2) store, read leases and semaphore permits) run against {@code fencegate serve} with
 * {@code tests/gateway.yaml} (the embedded default's H2 store {@code main}, plus a named statement).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class PythonClientIT {
    private static final Path MODULE = Path.of("").toAbsolutePath();
    private static Path work;
    private static GatewayProcess gateway;
    private static PythonVenv venv;

    @BeforeAll
    static void gatewayAndPackage() throws Exception {
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "python-client");
        // The embedded default's store main, with a named statement (tests/gateway.yaml).
        gateway = GatewayProcess.start(work, "serve", "--config", MODULE.resolve("tests/gateway.yaml").toString(), "--port", "0");
        venv = PythonVenv.create(work.resolve("venv"), PythonVenv.INSTALLS_WHEELS);
        venv.installWheel(wheel());
        gateway.awaitReady(90);
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        try (Stream<Path> all = Files.walk(work)) {
            all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void thePackagesTestsPassAgainstARealGateway() throws Exception {
        String url = gateway.uri().toString().replaceAll("/$", "");
        try (ChildProcess tests = ChildProcess.command("python-tests",
                        List.of(venv.python().toString(), "-m", "unittest", "discover", "-s", "tests", "-v"))
                .directory(MODULE).env(Map.of("FENCEGATE_URL", url, "PYTHONDONTWRITEBYTECODE", "1")).start()) {
            int exit = tests.await(180);
            String out = tests.output();
            assertThat(exit).as(out).isZero();
            Matcher ran = Pattern.compile("Ran (\\d+) tests?").matcher(out);
            assertThat(ran.find()).as(out).isTrue();
            assertThat(Integer.parseInt(ran.group(1))).as(out).isGreaterThanOrEqualTo(25);
            assertThat(out).as(out).doesNotContain("skipped");
            for (String property : List.of("test_the_quickstart_sells_one_unit_under_a_renewed_lease",
                    "test_a_holder_paused_past_its_ttl_is_refused_and_told_it_lost_the_lease",
                    "test_renews_while_the_main_thread_is_blocked",
                    "test_releases_the_lease_when_the_block_raises",
                    "test_a_retry_with_the_same_token_reports_already_applied",
                    "test_nothing_was_sent",
                    "test_a_statement_runs_under_the_guard_row_and_a_lower_token_is_stale",
                    "test_a_group_is_granted_renewed_and_released_together",
                    "test_a_stale_token_refuses_the_whole_transaction_and_is_named",
                    "test_a_fenced_multi_read_claims_every_item",
                    "test_bad_groups_transactions_and_multi_reads_send_nothing",
                    "test_two_read_leases_share_a_lock_and_keep_a_writer_out",
                    "test_a_read_token_is_refused_every_write_and_nothing_changes",
                    "test_a_permit_takes_slot_0_then_1_and_the_third_waits_then_gets_none")) {
                assertThat(out).as(out).containsPattern(Pattern.quote(property) + " \\(.*\\) \\.\\.\\. ok");
            }
        }
    }

    @Test
    void theTestsRanTheInstalledWheelNotTheCheckout() throws Exception {
        String where = ChildProcess.run(60, List.of(venv.python().toString(), "-c",
                "import fencegate; print(fencegate.__file__); print(fencegate.__version__)"));
        assertThat(where).contains(venv.dir().toString()).contains(pythonVersion());
    }

    @Test
    void theVersionFollowsTheBuildsMappedToPep440() throws Exception {
        String pyproject = Files.readString(MODULE.resolve("pyproject.toml"));
        assertThat(pyproject).contains("version = \"" + pythonVersion() + "\"");
        assertThat(Files.readString(MODULE.resolve("src/fencegate/__init__.py"))).contains("__version__ = \"" + pythonVersion() + "\"");
        assertThat(wheel().getFileName().toString()).isEqualTo("fencegate-" + pythonVersion() + "-py3-none-any.whl");
    }

    /** {@code 0.1.0-SNAPSHOT} is {@code 0.1.0.dev0}; a release {@code 0.1.0} stays {@code 0.1.0}. */
    private static String pythonVersion() {
        return System.getProperty("fencegate.version").replace("-SNAPSHOT", ".dev0");
    }

    private static Path wheel() throws Exception {
        try (Stream<Path> wheels = Files.list(MODULE.resolve("target/wheel"))) {
            List<Path> found = wheels.filter(p -> p.toString().endsWith(".whl")).toList();
            assertThat(found).as("the wheel build-wheel.sh made").hasSize(1);
            return found.get(0);
        }
    }
}
