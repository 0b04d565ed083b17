package io.fencegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BaselineTest {

    @Test
    void aTargetRowGetsTheKeptReportsFigureForTheSameLabel(@TempDir Path dir) throws Exception {
        Path kept = dir.resolve("BENCHMARKS.md");
        Files.writeString(kept, String.join("\n",
                "| target | measured (median [min–max]) | met? |",
                "| --- | --- | --- |",
                "| Redis issuer ≥ 0.8× the raw Lua floor, uncontended c=16 (the target) | 0.49× [0.44×–0.51×] | **no** |",
                "| fencegate Redis | 8000 | 1.00 | 2.1 | 1.00 |",
                ""));

        Baseline before = Baseline.read(kept);

        assertThat(before.withBefore("| Redis issuer ≥ 0.8× the raw Lua floor, uncontended c=16 (the target) | 0.85× [0.80×–0.90×] | yes |"))
                .isEqualTo("| Redis issuer ≥ 0.8× the raw Lua floor, uncontended c=16 (the target) | 0.49× [0.44×–0.51×] | 0.85× [0.80×–0.90×] | yes |");
        assertThat(before.withBefore("| a target added since | 1.10× | yes |")).isEqualTo("| a target added since | – | 1.10× | yes |");
    }

    @Test
    void aBlockingRowGetsTheFigureTheKeptReportMeasuredFromBlockingThreads(@TempDir Path dir) throws Exception {
        Path kept = dir.resolve("BENCHMARKS.md");
        Files.writeString(kept, String.join("\n",
                "| Redis issuer ≥ 0.8× the raw Lua floor, uncontended c=1 | 0.57× | **no** |",
                "| ZooKeeper issuer (zxid) ≥ 0.9× raw create+delete, uncontended c=1 | 0.33× | **no** |",
                ""));

        Baseline before = Baseline.read(kept);

        // The kept report drove the lease issuers from blocking threads only; its rows named no shape.
        assertThat(before.withBefore("| Redis issuer (blocking) ≥ 0.8× the raw Lua floor, uncontended c=1 | 0.60× | **no** |"))
                .isEqualTo("| Redis issuer (blocking) ≥ 0.8× the raw Lua floor, uncontended c=1 | 0.57× | 0.60× | **no** |");
        assertThat(before.withBefore("| ZooKeeper issuer (zxid, blocking) ≥ 0.9× raw create+delete, uncontended c=1 | 0.8× | **no** |"))
                .isEqualTo("| ZooKeeper issuer (zxid, blocking) ≥ 0.9× raw create+delete, uncontended c=1 | 0.33× | 0.8× | **no** |");
        assertThat(before.withBefore("| Redis issuer (async) ≥ 0.8× the raw Lua floor, uncontended c=1 | 0.9× | yes |"))
                .isEqualTo("| Redis issuer (async) ≥ 0.8× the raw Lua floor, uncontended c=1 | – | 0.9× | yes |");
    }

    @Test
    void withoutAKeptReportRowsStayAsTheyAre(@TempDir Path dir) throws Exception {
        Baseline none = Baseline.read(dir.resolve("missing.md"));

        assertThat(none.isEmpty()).isTrue();
        assertThat(none.withBefore("| a target | 1.10× | yes |")).isEqualTo("| a target | 1.10× | yes |");
    }
}
