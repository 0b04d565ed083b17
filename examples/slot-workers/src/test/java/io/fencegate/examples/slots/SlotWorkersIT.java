package io.fencegate.examples.slots;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.LauncherRun;
import io.fencegate.examples.support.PostgresSchema;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fencegate slot-workers} exactly as the README runs it: the launcher, a real gateway,
 * real worker processes on a fenced semaphore, real Postgres, a real SIGSTOP. The frozen worker's
 * late write must be refused (409), naming a fence above its token; every partition must be intact
 * (jobs 1..n, each once, in order, tokens never going down), and the frozen worker's slot must show
 * it handed over to another worker right after the job it had read.
 * {@code FENCEGATE_NO_BUILD} keeps the launcher from running Maven inside this Maven build.
 */
class SlotWorkersIT {
    private static final Pattern FROZEN = Pattern.compile("worker 0 read (slot/\\d+) \\(jobs 1\\.\\.(\\d+) done\\) with token (\\d+)");
    private static final Pattern REFUSED = Pattern.compile(
            "REFUSED \\(409 stale\\), nothing written\\n {4}its token (\\d+), the partition's fence (\\d+)");
    private static final Pattern PARTITION = Pattern.compile("(?m)^  (slot/\\d+): (\\d+) jobs, (intact|CORRUPTED)[^:]*: (.*)$");
    private static final Pattern RUN = Pattern.compile("worker (\\d+) \\(token (\\d+)\\) jobs (\\d+)-(\\d+)");
    private static final Pattern SCHEMA = Pattern.compile("schema (fg_slots_\\w+)");

    @TempDir
    Path dir;


    @Test
    @Timeout(value = 330, unit = TimeUnit.SECONDS)
    void aWorkerFrozenPastItsPermitLosesItsSlotAndItsLateWriteIsRefusedLeavingEveryPartitionIntact() throws Exception {
        LauncherRun run = slotWorkers();
        String out = run.output();
        assertThat(run.exit()).as(out).isZero();

        Matcher frozen = FROZEN.matcher(out);
        assertThat(frozen.find()).as(out).isTrue();
        String slot = frozen.group(1);
        int jobRead = Integer.parseInt(frozen.group(2));
        long frozenToken = Long.parseLong(frozen.group(3));

        Matcher refused = REFUSED.matcher(out);
        assertThat(refused.find()).as(out).isTrue();
        assertThat(Long.parseLong(refused.group(1))).isEqualTo(frozenToken);
        assertThat(Long.parseLong(refused.group(2))).as(out).isGreaterThan(frozenToken);

        // Every partition, as printed from the gateway at the end: intact, its holders' runs back to back.
        Matcher partition = PARTITION.matcher(out);
        int partitions = 0;
        while (partition.find()) {
            partitions++;
            assertThat(partition.group(3)).as(out).isEqualTo("intact");
            List<long[]> runs = runs(partition.group(4));
            assertThat(runs).as(out).isNotEmpty();
            assertThat(runs.get(0)[2]).isEqualTo(1);
            assertThat(runs.get(runs.size() - 1)[3]).isEqualTo(Long.parseLong(partition.group(2)));
            for (int i = 1; i < runs.size(); i++) {
                assertThat(runs.get(i)[2]).as(out).isEqualTo(runs.get(i - 1)[3] + 1);
                assertThat(runs.get(i)[1]).as(out).isGreaterThan(runs.get(i - 1)[1]);
            }
            if (partition.group(1).equals(slot)) {
                // The frozen worker's run ends at the job it read; the next job is its successor's.
                long[] frozenRun = runs.stream().filter(r -> r[1] == frozenToken).findFirst().orElseThrow();
                assertThat(frozenRun[0]).isZero();
                assertThat(frozenRun[3]).as(out).isEqualTo(jobRead);
                long[] next = runs.get(runs.indexOf(frozenRun) + 1);
                assertThat(next[0]).as(out).isNotZero();
                assertThat(next[3] - next[2] + 1).as(out).isGreaterThanOrEqualTo(SlotWorkersMain.JOBS_BEFORE);
            }
        }
        assertThat(partitions).as(out).isEqualTo(2);

        Matcher schema = SCHEMA.matcher(out);
        assertThat(schema.find()).as(out).isTrue();
        assertThat(PostgresSchema.exists(schema.group(1))).isFalse();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badFlagsAreRefusedWithAClearErrorAndStartNothing() throws Exception {
        LauncherRun slots = slotWorkers("--slots", "0");
        assertThat(slots.exit()).isEqualTo(2);
        assertThat(slots.output()).contains("--slots: expected 1 to 5, got 0").doesNotContain("fencegate slot-workers:");
    }

    /** {@code [worker, token, first job, last job]} of each run in a partition's holders line. */
    private static List<long[]> runs(String holders) {
        List<long[]> runs = new ArrayList<>();
        Matcher m = RUN.matcher(holders);
        while (m.find()) {
            runs.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                    Long.parseLong(m.group(4))});
        }
        return runs;
    }

    private LauncherRun slotWorkers(String... flags) throws Exception {
        return LauncherRun.run(dir, 300, "slot-workers", flags);
    }
}
