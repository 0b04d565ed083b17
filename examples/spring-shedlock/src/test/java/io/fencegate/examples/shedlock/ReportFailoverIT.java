package io.fencegate.examples.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.ExampleProcess;
import io.fencegate.examples.support.PostgresSchema;
import io.fencegate.schema.FencegateSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The safety claim, end to end: the report job runs on two instances (two JVMs, two Spring contexts,
 * one Redis issuer, one Postgres). The instance that wins the lock is frozen (SIGSTOP) in the
 * middle of its run; its lease runs out, the other instance takes the lock with a higher token and
 * writes the report; the frozen one is continued (SIGCONT) and makes its write, late, with its old
 * token. The table shows the outcome: the row carries the second holder's name and token, and the
 * late write was refused (0 rows), not merely skipped.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ReportFailoverIT {
    private static final Pattern STARTED = Pattern.compile("REPORT instance=(\\w+) started token=(\\d+)");

    @Test
    void aJobFrozenPastItsLeaseCannotOverwriteTheReportOfTheRunThatTookOver() throws Exception {
        List<String> row = freezeTheFirstRunnerUntilTheOtherHasWritten(true);
        assertThat(row.get(2)).as("the late write with the old token is refused").isEqualTo("false");
        assertThat(row.subList(0, 2)).as("the row still holds the newer run's report").containsExactly(row.get(3), row.get(4));
    }

    /** The control: the same run with the UPDATE's guard left out loses the newer report, so the test can fail. */
    @Test
    void withoutTheGuardTheFrozenJobsLateWriteOverwritesTheNewerReport() throws Exception {
        List<String> row = freezeTheFirstRunnerUntilTheOtherHasWritten(false);
        assertThat(row.get(2)).isEqualTo("true");
        assertThat(row.get(0)).as("the stale run's name replaced the newer run's").isNotEqualTo(row.get(3));
        assertThat(Long.parseLong(row.get(1))).as("and its older token went back into the row").isLessThan(Long.parseLong(row.get(4)));
    }

    /**
     * Runs the scenario; answers the row after the late write (writer, token), whether the late
     * write applied, and the name and token of the run that took over.
     */
    private List<String> freezeTheFirstRunnerUntilTheOtherHasWritten(boolean guarded) throws Exception {
        String redisPrefix = "fg-report-it-" + ThreadLocalRandom.current().nextInt(1 << 30) + ":";
        try (PostgresSchema db = PostgresSchema.create("ex_shedlock")) {
            prepare(db);
            try (ExampleProcess a = instance(db, redisPrefix, "alpha", guarded);
                    ExampleProcess b = instance(db, redisPrefix, "beta", guarded)) {
                // Whoever runs the job first is frozen mid-run (the run lasts 3 s; its lease 2 s without renewal).
                Matcher first = firstLine(List.of(a, b), STARTED, 120);
                ExampleProcess frozen = first.group(1).equals("alpha") ? a : b;
                ExampleProcess other = frozen == a ? b : a;
                String frozenName = first.group(1);
                String otherName = frozen == a ? "beta" : "alpha";
                long frozenToken = Long.parseLong(first.group(2));
                frozen.signal("STOP");
                long newToken;
                try {
                    Matcher takeover = other.awaitLine(Pattern.compile(
                            "REPORT instance=" + otherName + " write token=(\\d+) applied=(\\w+) lost=(\\w+)"), 60);
                    newToken = Long.parseLong(takeover.group(1));
                    assertThat(takeover.group(2)).as("the run that took over writes").isEqualTo("true");
                    assertThat(newToken).isGreaterThan(frozenToken);
                    assertThat(row(db)).containsExactly(otherName, Long.toString(newToken));
                } finally {
                    frozen.signal("CONT");
                }
                Matcher late = frozen.awaitLine(Pattern.compile(
                        "REPORT instance=" + frozenName + " write token=" + frozenToken + " applied=(\\w+) lost=(\\w+)"), 60);
                for (ExampleProcess p : List.of(a, b)) {
                    p.seen.stream().filter(line -> line.startsWith("REPORT")).forEach(System.out::println);
                }
                List<String> row = row(db);
                return List.of(row.get(0), row.get(1), late.group(1), otherName, Long.toString(newToken));
            }
        } finally {
            deleteRedisKeys(redisPrefix);
        }
    }

    private static void deleteRedisKeys(String prefix) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379");
        try (var c = client.connect()) {
            List<String> keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            client.shutdown();
        }
    }

    /** fencegate's tables and the report row exist before either instance starts (no migration race). */
    private static void prepare(PostgresSchema db) throws Exception {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.jdbcUrl());
        ds.setUser("postgres");
        FencegateSchema.migrate(ds);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE report (id INT PRIMARY KEY, writer VARCHAR(64), token BIGINT NOT NULL)");
            s.execute("INSERT INTO report VALUES (1, 'nobody', 0)");
        }
    }

    private static ExampleProcess instance(PostgresSchema db, String redisPrefix, String name, boolean guarded) throws Exception {
        return ExampleProcess.program(ReportApplication.class.getName(),
                "--spring.datasource.url=" + db.jdbcUrl(),
                "--fencegate.issuer.redis.key-prefix=" + redisPrefix,
                "--report.instance=" + name, "--report.work=3s", "--report.lock-at-most-for=2s",
                "--report.guarded=" + guarded, "--logging.level.root=WARN");
    }

    private static List<String> row(PostgresSchema db) throws Exception {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), "postgres", "");
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT writer, token FROM report WHERE id = 1")) {
            assertThat(rs.next()).isTrue();
            return List.of(rs.getString(1), Long.toString(rs.getLong(2)));
        }
    }

    /** The first line matching {@code pattern} in any of the processes' output. */
    private static Matcher firstLine(List<ExampleProcess> processes, Pattern pattern, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            for (ExampleProcess p : processes) {
                if (!p.process.isAlive()) {
                    throw new AssertionError("an instance exited before " + pattern + ": " + p.seen);
                }
                synchronized (p.seen) {
                    for (String line : p.seen) {
                        Matcher m = pattern.matcher(line);
                        if (m.find()) {
                            return m;
                        }
                    }
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no line matching " + pattern + " in " + processes.stream().map(p -> p.seen).toList());
    }
}
