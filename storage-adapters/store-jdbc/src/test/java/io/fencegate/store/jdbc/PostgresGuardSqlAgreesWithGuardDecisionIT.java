package io.fencegate.store.jdbc;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.WriteResult;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.ItemState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On PostgreSQL the guard must also be written in SQL (PostgresGuardSql: one statement, one round
 * trip). This runs that SQL on every state of a small grid and checks it against GuardDecision:
 * the answer, and what the row holds afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresGuardSqlAgreesWithGuardDecisionIT {
    private TestDatabase db;

    @BeforeAll
    void createDatabase() throws Exception {
        db = TestDatabase.create(TestDatabase.Kind.POSTGRES);
    }

    @AfterAll
    void dropDatabase() throws Exception {
        db.close();
    }

    @Test
    void oneStatementWritesAndFencedReadsDecideAsGuardDecisionOnEveryState() throws Exception {
        byte[] value = {1};
        byte[] next = {2};
        int cases = 0;
        for (GuardRule rule : GuardRule.values()) {
            try (JdbcGuardedStore store = JdbcGuardedStore.open(db.options().rule(rule).poolSize(2));
                    Connection c = db.connect()) {
                for (long token = 0; token <= 4; token++) {
                    for (long fence = token; fence <= 4; fence++) {
                        for (long t = 1; t <= 5; t++) {
                            ItemState state = new ItemState(token, fence, value);
                            String w = "w/" + rule + "/" + token + "/" + fence + "/" + t;
                            String r = "r/" + rule + "/" + token + "/" + fence + "/" + t;
                            insert(c, w, state);
                            insert(c, r, state);
                            WriteResult decided = GuardDecision.write(rule, state, t);
                            assertThat(await(store.write(w, t, next))).as(w).isEqualTo(decided);
                            ItemState after = decided instanceof Applied ? new ItemState(t, t, next) : state;
                            assertThat(await(store.read(w))).as(w + " afterwards").usingRecursiveComparison()
                                    .isEqualTo(GuardDecision.plainRead(after));
                            assertThat(await(store.fencedRead(r, t))).as(r).usingRecursiveComparison()
                                    .isEqualTo(GuardDecision.fencedRead(state, t));
                            cases++;
                        }
                    }
                }
            }
        }
        assertThat(cases).isEqualTo(2 * 15 * 5);
    }

    private static void insert(Connection c, String key, ItemState state) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO fencegate_item (resource, val, token, fence) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, key);
            ps.setBytes(2, state.value());
            ps.setLong(3, state.token());
            ps.setLong(4, state.fence());
            ps.executeUpdate();
        }
    }
}
