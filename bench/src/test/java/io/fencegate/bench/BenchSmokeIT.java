package io.fencegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke profile, so the bench cannot rot: every contender of every group runs against the real
 * backends and the report and its charts are written. No timing is asserted: CI machines are noisy.
 */
class BenchSmokeIT {

    @Test
    @Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
    void everyContenderRunsAndTheReportIsWritten(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("BENCHMARKS.md");

        List<Scenario> scenarios = BenchMain.run(Profile.SMOKE, out, Set.copyOf(BenchMain.GROUPS), "BenchSmokeIT");

        assertThat(scenarios).extracting(Scenario::section).containsAll(List.of(ZooKeeperLeases.SECTION,
                RedisLeases.SECTION, GatewayWrites.POSTGRES, GatewayWrites.MARIADB, GatewayWrites.CLIENT,
                LibraryWrites.JDBC, LibraryWrites.FILES, ShedLockPairs.SECTION, SqlLeases.POSTGRES, SqlLeases.MARIADB,
                MultiLockPairs.SECTION, GatewayTransfers.SECTION, ClientLanguages.SECTION, ReadWriteLeases.SECTION));
        // Read leases and permits on every issuer, each beside its peer on the same backend, at 1 and 16.
        assertThat(scenarios).filteredOn(s -> s.section().equals(ReadWriteLeases.SECTION))
                .extracting(s -> s.title() + " c=" + s.concurrency()).hasSize(12).contains(
                        ReadWriteLeases.READ + ", ZooKeeper, in flight c=16", ReadWriteLeases.READ + ", Redis, in flight c=1",
                        ReadWriteLeases.PERMIT + ", ZooKeeper, in flight c=1", ReadWriteLeases.PERMIT + ", Redis, in flight c=16",
                        ReadWriteLeases.PERMIT + ", SQL on PostgreSQL, in flight c=16");
        // MultiLock against two single acquires on every issuer the bench covers, at 1 and 16.
        assertThat(scenarios).filteredOn(s -> s.section().equals(MultiLockPairs.SECTION))
                .extracting(s -> s.title() + " c=" + s.concurrency()).containsExactlyInAnyOrder(
                        "ZooKeeper (zxid), in flight c=1", "ZooKeeper (zxid), in flight c=16", "Redis, in flight c=1",
                        "Redis, in flight c=16", "SQL on PostgreSQL, in flight c=1", "SQL on PostgreSQL, in flight c=16",
                        "SQL on MariaDB, in flight c=1", "SQL on MariaDB, in flight c=16");
        for (String leases : List.of(ZooKeeperLeases.SECTION, RedisLeases.SECTION)) {
            // Every lease contender runs in both call shapes, at 1 and 16.
            assertThat(scenarios).filteredOn(s -> s.section().equals(leases))
                    .extracting(s -> s.title() + " c=" + s.concurrency()).contains(
                            LeaseShapes.title(LeaseShapes.BLOCKING) + " c=1", LeaseShapes.title(LeaseShapes.ASYNC) + " c=1",
                            LeaseShapes.title(LeaseShapes.BLOCKING) + " c=16", LeaseShapes.title(LeaseShapes.ASYNC) + " c=16");
        }
        for (Scenario s : scenarios) {
            for (int i = 0; i < s.contenders().size(); i++) {
                List<Sample> runs = s.samples().get(i);
                assertThat(runs).as("%s / %s c=%d / %s", s.section(), s.title(), s.concurrency(), s.contenders().get(i).name())
                        .hasSize(Profile.SMOKE.repetitions())
                        .allSatisfy(r -> assertThat(r.ops()).isPositive());
            }
        }
        String report = Files.readString(out);
        assertThat(report).contains("## Headline ratios", "## Machine", "## Versions", "Hazelcast FencedLock",
                "Redisson RFencedLock", "pgbench, the same guarded statement", "FencegateClient",
                "ShedLock JdbcTemplateLockProvider", SqlLeases.REGISTRY, SqlLeases.FLOOR,
                "SQL issuer hand-off p50 < 20 ms with LISTEN/NOTIFY",
                "Redis issuer (async) ≥ 0.8× the raw Lua floor", "ZooKeeper issuer (zxid, blocking) ≥ 0.9× raw create+delete",
                "Two-item transfer: gateway (one transaction request) ≥ 0.8× pgbench", GatewayTransfers.GATEWAY_STATEMENTS,
                "MultiLock of 2 ≥ 1.0× two single acquires in sequence, SQL on MariaDB, c=16",
                "Python client ≥ 0.8× a plain http.client loop", "Node client ≥ 0.8× a plain fetch loop",
                "Read lease: ZooKeeper issuer ≥ 1.0× Curator InterProcessReadWriteLock's read lock, one lock, c=16",
                "Permit: Redis issuer ≥ 1.0× Redisson RSemaphore, c=1", ReadWriteLeases.CURATOR_SEMAPHORE, GatewayWrites.BATCHES);
        try (var charts = Files.list(dir.resolve("benchmarks"))) {
            assertThat(charts.filter(p -> p.toString().endsWith(".svg")).count()).isEqualTo(15);
        }
        assertThat(Profile.SMOKE.measure()).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    @Timeout(value = 8, unit = java.util.concurrent.TimeUnit.MINUTES)
    void everyScaleCurveRunsAtTinySizesAndItsSectionSurvivesTheOtherProfiles(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("BENCHMARKS.md");
        Files.writeString(out, "# fencegate benchmarks\n\nwritten by another profile\n");

        ScaleRun.run(out, Set.copyOf(ScaleRun.CURVES), ScaleRun.Sizes.tiny(), "BenchSmokeIT");

        String report = Files.readString(out);
        assertThat(report).startsWith("# fencegate benchmarks").contains(ScaleReport.START, ScaleReport.END,
                "### Distinct locks", "| ZooKeeper | 200 |", "| Redis | 200 |", "### Waiters on one lock",
                "| 4 | 2 |", "### Items per store", "| MariaDB | 1,000 |", "### Watchers of one lease", "### Value size", "| 64 KiB | pg |", "### Memory");
        // The memory figures: per idle lock on each backend, per item, per SSE watcher.
        assertThat(report).contains("Per idle lock", "the server's heap", "bytes per item", "bytes of gateway heap per SSE watcher",
                "The issuers' JVM: heap after GC", "its JVM's heap after a full GC");
        // All 3 watchers read their expired event: | watchers | requests/s | over the floor | told | ...
        assertThat(report).containsPattern("\\| 3 \\| \\d+ \\| -?\\d+ \\| 3 \\| \\d+ \\|");
        try (var charts = Files.list(dir.resolve("benchmarks"))) {
            assertThat(charts.map(p -> p.getFileName().toString())).contains("scale-locks.svg", "scale-waiters.svg",
                    "scale-watchers.svg", "scale-values.svg", "scale-items.svg");
        }
        // A second scale run replaces its section; another profile's report carries it over.
        String section = report.substring(report.indexOf(ScaleReport.START));
        assertThat(ScaleReport.carried(out).trim()).isEqualTo(section.trim());
    }
}
