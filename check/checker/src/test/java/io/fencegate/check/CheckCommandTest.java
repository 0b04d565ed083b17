package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bad input exits 2 ("proved nothing") with a message naming the option, before any client runs. */
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
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "bank")).contains("--workload").contains("bank");
    }

    @Test
    void bypassControlWithoutDatabaseExitsTwoNamingTheOption() {
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "counter", "--control", "bypass-guard"))
                .contains("--bypass-jdbc-url");
    }

    @Test
    void ttlBelowTheGatewayMinimumExitsTwo() {
        assertThat(errorOf("--url", "http://127.0.0.1:1", "--workload", "mutex", "--ttl-ms", "50")).contains("--ttl-ms");
    }

    @Test
    void missingUrlExitsTwo() {
        assertThat(errorOf("--workload", "counter")).contains("--url");
    }
}
