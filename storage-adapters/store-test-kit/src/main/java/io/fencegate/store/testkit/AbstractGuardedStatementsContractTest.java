package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Executed;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStatements;
import io.fencegate.store.NamedSql;
import io.fencegate.store.Stale;
import io.fencegate.store.StatementResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every {@link GuardedStatements} passes against its real database (DESIGN.md,
 * "Shapes and stores": the guard row). Statements run in one transaction with the guard row of a
 * key: applied with the rows they changed, or stale with nothing run; a failing statement leaves
 * nothing behind, the guard row included; a higher token fences out every lower one on that key;
 * of concurrent first users of a key with one token, exactly one runs.
 *
 * <p>A database's test extends this class, supplies statements on a namespace of its own (its
 * own schema or database, with fencegate's migrations applied) and a way to run plain SQL there;
 * each test creates and drops a table of its own.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractGuardedStatementsContractTest {

    /** Statements with {@code rule} on the suite's namespace. Closed by the suite if closeable. */
    protected abstract GuardedStatements newStatements(GuardRule rule) throws Exception;

    /** Runs {@code sql} on the suite's namespace outside any guard (DDL, setup). */
    protected abstract void adminExecute(String sql) throws Exception;

    /** The single number {@code sql} selects, read outside any guard. */
    protected abstract long adminQueryLong(String sql) throws Exception;

    private final String prefix = "statements-" + UUID.randomUUID().toString().substring(0, 8) + "/";
    private final TestResources resources = new TestResources();
    /** This test's own table: {@code id} (text key) and {@code n} (a counter). */
    protected String table;

    @BeforeEach
    void createTable() throws Exception {
        table = "fg_ledger_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        adminExecute("CREATE TABLE " + table + " (id VARCHAR(64) NOT NULL PRIMARY KEY, n BIGINT NOT NULL)");
    }

    @AfterEach
    void dropTableAndClose() throws Exception {
        resources.closeAll();
        adminExecute("DROP TABLE " + table);
    }

    /** A guard key under this test's own random prefix. */
    protected String key(String name) {
        return prefix + name;
    }

    protected final GuardedStatements statements(GuardRule rule) throws Exception {
        GuardedStatements statements = newStatements(rule);
        if (statements instanceof AutoCloseable closeable) {
            resources.add(closeable);
        }
        return statements;
    }

    private NamedSql insert() {
        return NamedSql.parse("INSERT INTO " + table + " (id, n) VALUES (:id, :n)");
    }

    private NamedSql bump() {
        return NamedSql.parse("UPDATE " + table + " SET n = n + :by WHERE id = :id");
    }

    private long counter(String id) throws Exception {
        return adminQueryLong("SELECT COALESCE(SUM(n), -1) FROM " + table + " WHERE id = '" + id + "'");
    }

    private long rows() throws Exception {
        return adminQueryLong("SELECT COUNT(*) FROM " + table);
    }

    @Test
    void appliedStatementRunsWithBoundParametersAndReportsItsRows() throws Exception {
        GuardedStatements s = statements(GuardRule.STRICT);
        String k = key("applied");
        assertThat(await(s.execute(k, 5, insert(), Map.of("id", "a", "n", 1)))).isEqualTo(new Executed(0, 1));
        assertThat(await(s.execute(k, 6, bump(), Map.of("id", "a", "by", 2)))).isEqualTo(new Executed(5, 1));
        assertThat(await(s.execute(k, 7, bump(), Map.of("id", "nobody", "by", 2)))).as("no row matched")
                .isEqualTo(new Executed(6, 0));
        assertThat(counter("a")).isEqualTo(3);
    }

    @Test
    void staleStatementRunsNothingAndReportsTheGuard() throws Exception {
        GuardedStatements s = statements(GuardRule.STRICT);
        String k = key("stale");
        await(s.execute(k, 10, insert(), Map.of("id", "a", "n", 1)));
        assertThat(await(s.execute(k, 9, bump(), Map.of("id", "a", "by", 100)))).isEqualTo(new Stale(10, 10, 9));
        assertThat(counter("a")).as("nothing ran").isEqualTo(1);
    }

    @Test
    void higherTokenFencesOutEveryLowerOneOnTheSameKeyButNotOtherKeys() throws Exception {
        GuardedStatements s = statements(GuardRule.STRICT);
        await(s.execute(key("fenced"), 7, insert(), Map.of("id", "a", "n", 1)));
        for (long lower = 1; lower < 7; lower++) {
            assertThat(await(s.execute(key("fenced"), lower, bump(), Map.of("id", "a", "by", 1))))
                    .isEqualTo(new Stale(7, 7, lower));
        }
        assertThat(await(s.execute(key("other"), 3, bump(), Map.of("id", "a", "by", 1))))
                .as("another key has a guard row of its own").isEqualTo(new Executed(0, 1));
        assertThat(counter("a")).isEqualTo(2);
    }

    @Test
    void strictRetryIsRecognisablyAlreadyAppliedAndSameLeaseRunsAgain() throws Exception {
        GuardedStatements strict = statements(GuardRule.STRICT);
        await(strict.execute(key("strict"), 4, insert(), Map.of("id", "s", "n", 1)));
        StatementResult retry = await(strict.execute(key("strict"), 4, bump(), Map.of("id", "s", "by", 1)));
        assertThat(retry).isEqualTo(new Stale(4, 4, 4));
        assertThat(((Stale) retry).alreadyApplied()).isTrue();
        assertThat(counter("s")).isEqualTo(1);

        GuardedStatements sameLease = statements(GuardRule.SAME_LEASE);
        await(sameLease.execute(key("same"), 4, insert(), Map.of("id", "l", "n", 1)));
        assertThat(await(sameLease.execute(key("same"), 4, bump(), Map.of("id", "l", "by", 1))))
                .isEqualTo(new Executed(4, 1));
        assertThat(await(sameLease.execute(key("same"), 3, bump(), Map.of("id", "l", "by", 1))))
                .isEqualTo(new Stale(4, 4, 3));
        assertThat(counter("l")).isEqualTo(2);
    }

    /** The statement fails half-way (its second row is a duplicate): no row, and no guard advance. */
    @Test
    void failingStatementLeavesNothingBehindTheGuardRowIncluded() throws Exception {
        GuardedStatements s = statements(GuardRule.STRICT);
        String k = key("all-or-nothing");
        await(s.execute(key("setup"), 1, insert(), Map.of("id", "taken", "n", 1)));
        NamedSql twoRows = NamedSql.parse("INSERT INTO " + table + " (id, n) VALUES (:a, 1), (:b, 1)");
        assertThat(failureOf(() -> s.execute(k, 5, twoRows, Map.of("a", "fresh", "b", "taken"))))
                .isInstanceOf(RuntimeException.class);
        assertThat(counter("fresh")).as("the first row rolled back").isEqualTo(-1);
        assertThat(rows()).isEqualTo(1);
        assertThat(await(s.execute(k, 5, insert(), Map.of("id", "fresh", "n", 1))))
                .as("the guard row was not created: the same token runs, previous token 0")
                .isEqualTo(new Executed(0, 1));
        assertThat(failureOf(() -> s.execute(k, 6, twoRows, Map.of("a", "fresh2", "b", "taken"))))
                .isInstanceOf(RuntimeException.class);
        assertThat(await(s.execute(k, 6, bump(), Map.of("id", "fresh", "by", 1))))
                .as("the guard row was not advanced to 6").isEqualTo(new Executed(5, 1));
    }

    @Test
    void badInputFailsTheStageAndChangesNothing() throws Exception {
        GuardedStatements s = statements(GuardRule.STRICT);
        String k = key("bad");
        assertThat(failureOf(() -> s.execute(k, 0, insert(), Map.of("id", "a", "n", 1))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> s.execute("../up", 1, insert(), Map.of("id", "a", "n", 1))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> s.execute(k, 3, insert(), Map.of("id", "a"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'n'");
        assertThat(rows()).isZero();
        assertThat(await(s.execute(k, 1, insert(), Map.of("id", "a", "n", 1)))).as("no guard row was left")
                .isEqualTo(new Executed(0, 1));
    }

    /** Eight first users of one key with one token, released at once: exactly one runs. */
    @Test
    void concurrentFirstUsersOfAKeyWithOneTokenExactlyOneRuns() throws Exception {
        GuardedStatements s = statements(GuardRule.STRICT);
        String k = key("race");
        adminExecute("INSERT INTO " + table + " (id, n) VALUES ('c', 0)");
        List<StatementResult> results = race(8, i -> s.execute(k, 42, bump(), Map.of("id", "c", "by", 1)));
        assertThat(results).filteredOn(r -> r instanceof Executed).hasSize(1);
        assertThat(results).filteredOn(r -> r instanceof Stale).hasSize(7)
                .allSatisfy(r -> assertThat(((Stale) r).alreadyApplied()).isTrue());
        assertThat(counter("c")).isEqualTo(1);
    }

    /** Tokens 1..8 at once on a fresh key: each runs at most once, the highest always, the counter agrees. */
    @Test
    void concurrentTokensOnAKeyRunInTokenOrderOnly() throws Exception {
        GuardedStatements s = statements(GuardRule.STRICT);
        String k = key("tokens");
        adminExecute("INSERT INTO " + table + " (id, n) VALUES ('c', 0)");
        List<StatementResult> results = race(8, i -> s.execute(k, i + 1, bump(), Map.of("id", "c", "by", 1)));
        long executed = results.stream().filter(r -> r instanceof Executed).count();
        assertThat(results.get(7)).as("nothing can fence out the highest token").isInstanceOf(Executed.class);
        assertThat(counter("c")).isEqualTo(executed);
        // Each Executed reports a lower previous token than its own: the guard only moved forward.
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof Executed e) {
                assertThat(e.previousToken()).isLessThan(i + 1);
            }
        }
    }

    @FunctionalInterface
    private interface Call {
        CompletionStage<StatementResult> run(int i) throws Exception;
    }

    private static List<StatementResult> race(int n, Call call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<StatementResult>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    start.await();
                    return await(call.run(index));
                }));
            }
            start.countDown();
            List<StatementResult> results = new ArrayList<>();
            for (Future<StatementResult> f : futures) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
