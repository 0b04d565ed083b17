package io.fencegate.examples.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.Lease;
import io.fencegate.examples.support.ExampleProcess;
import io.fencegate.examples.support.GatewayShelf;
import io.fencegate.testing.PythonVenv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code python sell.py} as a user runs it: the fencegate package installed from the checkout with
 * pip into a virtual environment of the test's own (offline), against {@code fencegate serve} on
 * its embedded default.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SellPyIT {
    @RegisterExtension
    static final GatewayShelf GATEWAY = new GatewayShelf();
    private static String python;

    @BeforeAll
    static void installThePackage() throws Exception {
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "sell-py").resolve("venv");
        PythonVenv venv = PythonVenv.create(dir, PythonVenv.BUILDS_SOURCE);
        venv.installSource(Path.of("../../clients/python").toAbsolutePath().normalize()); // pip install ../../clients/python
        python = venv.python().toString();
    }

    @Test
    void sellsOutWithFencedReadModifyWrites() throws Exception {
        GATEWAY.shelf().stock("stock/py", 3);
        try (ExampleProcess run = ExampleProcess.command(python, "sell.py", GATEWAY.url(), "main", "stock/py", "10")) {
            assertThat(run.awaitExit(60)).as("%s", run.seen).isZero();
            assertThat(run.seen).as("%s", run.seen).contains("done: sold 3")
                    .filteredOn(l -> l.startsWith("sold 1 with token ")).hasSize(3);
        }
        assertThat(GATEWAY.shelf().stockOf("stock/py")).isEqualTo("0");
        Lease next = GATEWAY.client().acquire("main/stock/py", Duration.ofSeconds(5), Duration.ZERO).orElseThrow(); // released
        GATEWAY.client().release(next.leaseId());
    }

    @Test
    void twoSellersTogetherSellExactlyTheStock() throws Exception {
        GATEWAY.shelf().stock("stock/py-race", 12);
        try (ExampleProcess a = ExampleProcess.command(python, "sell.py", GATEWAY.url(), "main", "stock/py-race", "100");
                ExampleProcess b = ExampleProcess.command(python, "sell.py", GATEWAY.url(), "main", "stock/py-race", "100")) {
            assertThat(a.awaitExit(90)).as("%s", a.seen).isZero();
            assertThat(b.awaitExit(90)).as("%s", b.seen).isZero();
            long sold = a.seen.stream().filter(l -> l.startsWith("sold 1 ")).count()
                    + b.seen.stream().filter(l -> l.startsWith("sold 1 ")).count();
            assertThat(sold).isEqualTo(12);
        }
        assertThat(GATEWAY.shelf().stockOf("stock/py-race")).isEqualTo("0");
    }
}
