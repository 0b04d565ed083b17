package io.fencegate.examples.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.LauncherRun;
import io.fencegate.examples.support.PostgresSchema;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fencegate transfer} exactly as the README runs it: the launcher, real teller processes,
 * real Postgres and Redis, a real SIGSTOP. Mode 1 (a plain lock) must change the bank's total by
 * exactly what the frozen teller's stale read says; mode 2 (MultiLock, fenced multi-read, one
 * transaction) must refuse that teller's transaction, naming its items, and keep the total.
 * {@code FENCEGATE_NO_BUILD} keeps the launcher from running Maven inside this Maven build.
 */
class TransferIT {
    private static final Pattern MOVED = Pattern.compile("moved (\\S+) \\+ (\\S+) from (\\d+) to (\\d+) while it was stopped");
    private static final Pattern TOTAL = Pattern.compile("total before (\\d+), after (\\d+): ");
    private static final Pattern REFUSED_ITEM = Pattern.compile("(account/\\d+): its token (\\d+), the item's fence (\\d+)");
    private static final Pattern SCHEMAS = Pattern.compile("schemas (fg_transfer_\\w+) \\(mode 1\\) and (fg_transfer_gw_\\w+)");

    @TempDir
    Path dir;


    /** Two tellers (the frozen one and its successor): one JVM fewer to start on a loaded machine. */
    @Test
    @Timeout(value = 330, unit = TimeUnit.SECONDS)
    void aPlainLockLetsAFrozenTellerChangeTheTotalWhileAMultiLockTransactionIsRefusedAndTheTotalIsExact() throws Exception {
        LauncherRun run = transfer("--tellers", "2");
        String out = run.output();
        assertThat(run.exit()).as(out).isZero();
        String[] modes = out.split("(?m)^mode 2, ");
        assertThat(modes).as(out).hasSize(2);

        // Mode 1: the stale write lands; the total moves by exactly what moved under the frozen teller.
        long[] moved1 = moved(modes[0]);
        long[] total1 = totals(modes[0]);
        assertThat(modes[0]).contains("its write APPLIED");
        assertThat(total1[1]).as(out).isNotEqualTo(total1[0]);
        assertThat(total1[1] - total1[0]).as(out).isEqualTo(moved1[0] - moved1[1]);
        assertThat(out).containsPattern("\\d+ (CREATED out of nothing|DESTROYED)");

        // Mode 2: the same freeze, the same kind of move under it; the transaction is refused as a whole.
        long[] moved2 = moved(modes[1]);
        long[] total2 = totals(modes[1]);
        assertThat(moved2[0]).isNotEqualTo(moved2[1]);
        assertThat(modes[1]).contains("its transaction was REFUSED (409 stale), nothing applied");
        assertThat(total2[1]).as(out).isEqualTo(total2[0]).isEqualTo(TransferMain.OPENING_BALANCE * 5);
        Matcher item = REFUSED_ITEM.matcher(modes[1]);
        assertThat(item.find()).as(out).isTrue();
        assertThat(Long.parseLong(item.group(2))).isLessThan(Long.parseLong(item.group(3)));

        // Both schemas it made are gone.
        Matcher schemas = SCHEMAS.matcher(out);
        assertThat(schemas.find()).as(out).isTrue();
        assertThat(PostgresSchema.exists(schemas.group(1))).isFalse();
        assertThat(PostgresSchema.exists(schemas.group(2))).isFalse();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badFlagsAreRefusedWithAClearErrorAndStartNothing() throws Exception {
        LauncherRun tellers = transfer("--tellers", "1");
        assertThat(tellers.exit()).isEqualTo(2);
        assertThat(tellers.output()).contains("--tellers: expected 2 to 6, got 1").doesNotContain("fencegate transfer:");
        LauncherRun url = transfer("--jdbc-url", "jdbc:mariadb://127.0.0.1:3306/test");
        assertThat(url.exit()).isEqualTo(2);
        assertThat(url.output()).contains("--jdbc-url: expected jdbc:postgresql://..., got 'jdbc:mariadb://127.0.0.1:3306/test'");
    }

    /** {@code [sum the frozen teller read, sum when it was thawed]} of the mode's output. */
    private static long[] moved(String mode) {
        Matcher m = MOVED.matcher(mode);
        assertThat(m.find()).as(mode).isTrue();
        return new long[] {Long.parseLong(m.group(3)), Long.parseLong(m.group(4))};
    }

    private static long[] totals(String mode) {
        Matcher m = TOTAL.matcher(mode);
        assertThat(m.find()).as(mode).isTrue();
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    private LauncherRun transfer(String... flags) throws Exception {
        return LauncherRun.run(dir, 300, "transfer", flags);
    }
}
