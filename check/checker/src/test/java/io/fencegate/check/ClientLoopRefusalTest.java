package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A client against a gateway that refuses connections: nothing was sent, so nothing is unknown, and it backs off. */
class ClientLoopRefusalTest {

    @Test
    void refusedConnectionsAreFailuresAndTheClientBacksOff() {
        // Port 1 on loopback: nothing listens there on a test machine, so every connect is refused.
        URI closed = URI.create("http://127.0.0.1:1/");
        RunOptions options = new RunOptions(List.of(closed), Workload.MUTEX, 2, 1, 0, "main", "refused", 1, 1000, 0, 0,
                Control.NONE, List.of(), null).validate();
        History history = new History();
        long deadline = Clock.nowUs() + 2_000_000;
        new ClientLoop(options, new Gateways(options.gateways(), null, Duration.ofSeconds(5)), history, 0, deadline, null).run();

        List<Op> ops = history.ops();
        String seen = ops.size() + " acquires: " + ops.stream().map(o -> o.outcome() + " " + o.note()).distinct().toList();
        assertThat(ops).as(seen).isNotEmpty().allSatisfy(o -> {
            assertThat(o.outcome()).isEqualTo(Outcome.FAIL);
            assertThat(o.gateway()).isEqualTo(closed.toString());
        });
        // 50 ms doubling, each wait between half and all of it: 2 s pass after 6 to 8 tries; a fixed 50 ms made 21.
        assertThat(ops).as(seen).hasSizeLessThanOrEqualTo(10);
    }
}
