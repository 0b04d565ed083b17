package io.fencegate.examples.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
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

    record Run(int exit, String output) {}

    /** Two tellers (the frozen one and its successor): one JVM fewer to start on a loaded machine. */
    @Test
    @Timeout(value = 330, unit = TimeUnit.SECONDS)
    void aPlainLockLetsAFrozenTellerChangeTheTotalWhileAMultiLockTransactionIsRefusedAndTheTotalIsExact() throws Exception {
        Run run = transfer("--tellers", "2");
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
        assertThat(schemaExists(schemas.group(1))).isFalse();
        assertThat(schemaExists(schemas.group(2))).isFalse();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badFlagsAreRefusedWithAClearErrorAndStartNothing() throws Exception {
        Run tellers = transfer("--tellers", "1");
        assertThat(tellers.exit()).isEqualTo(2);
        assertThat(tellers.output()).contains("--tellers: expected 2 to 6, got 1").doesNotContain("fencegate transfer:");
        Run url = transfer("--jdbc-url", "jdbc:mariadb://127.0.0.1:3306/test");
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

    private static boolean schemaExists(String name) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             PreparedStatement s = c.prepareStatement("SELECT 1 FROM information_schema.schemata WHERE schema_name = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        }
    }

    private Run transfer(String... flags) throws Exception {
        List<String> command = new ArrayList<>(List.of(repoRoot().resolve("fencegate").toString(), "transfer"));
        command.addAll(List.of(flags));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("FENCEGATE_"));
        builder.environment().put("FENCEGATE_NO_BUILD", "1");
        builder.environment().put("FENCEGATE_JAVA_OPTS", "-XX:TieredStopAtLevel=1"); // a short run: C2 would only cost CPU
        Process process = builder.start();
        // Read as it comes, so a run that does not finish still shows how far it got.
        StringBuffer output = new StringBuffer();
        Thread reader = new Thread(() -> {
            try {
                process.getInputStream().transferTo(new java.io.OutputStream() {
                    @Override
                    public void write(int b) {
                        output.append((char) b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        output.append(new String(b, off, len, StandardCharsets.UTF_8));
                    }
                });
            } catch (java.io.IOException ended) {
                // the process is gone
            }
        });
        reader.start();
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            process.destroy(); // SIGTERM: its shutdown hook thaws and stops what it started
            process.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError("./fencegate transfer did not finish in 300 s; it printed:\n" + output);
        }
        reader.join(10_000);
        return new Run(process.exitValue(), output.toString());
    }

    /** The checkout's root: the nearest folder up from here that holds the launcher. */
    private static Path repoRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("fencegate")) && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException("no ./fencegate launcher above " + Path.of("").toAbsolutePath());
    }
}
