package io.fencegate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The "listening" line as ServeCommand prints it, read from a stand-in command. */
@Timeout(60)
class GatewayProcessTest {

    @Test
    void theListeningLineGivesThePortAndScheme() {
        assertThat(GatewayProcess.portOf("fencegate listening on http://127.0.0.1:8443 (issuer zookeeper)")).isEqualTo(8443);
        assertThat(GatewayProcess.portOf("fencegate listening on https://localhost:9 (x)")).isEqualTo(9);
        assertThat(GatewayProcess.portOf("fencegate starting on port 8443")).isEqualTo(-1);
    }

    @Test
    void awaitReadySkipsOtherLinesAndTheCommandGetsOnlyTheEnvironmentItIsGiven(@TempDir Path work) throws Exception {
        String script = "echo \"inherited:${FENCEGATE_INHERITED:-none} given:$FENCEGATE_GIVEN\"; echo 'WARN something'; "
                + "echo 'fencegate listening on http://127.0.0.1:4567 (embedded default)'; sleep 30";
        try (GatewayProcess gw = GatewayProcess.command(work, Map.of("FENCEGATE_GIVEN", "yes"), List.of("sh", "-c", script))) {
            assertThat(gw.awaitReady(20).uri()).isEqualTo(URI.create("http://127.0.0.1:4567/"));
            assertThat(gw.output()).startsWith("inherited:none given:yes");
            gw.kill();
        }
    }

    @Test
    void aGatewayThatExitsBeforeListeningFailsWithWhatItPrinted(@TempDir Path work) throws Exception {
        try (GatewayProcess gw = GatewayProcess.command(work, Map.of(), List.of("sh", "-c", "echo 'server.port: bad'; exit 2"))) {
            assertThatThrownBy(() -> gw.awaitReady(20)).hasMessageContaining("server.port: bad");
            assertThat(gw.exit(20)).isEqualTo(2);
        }
    }
}
