package io.fencegate.store.jdbc;

import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStatements;
import io.fencegate.store.testkit.AbstractGuardedStatementsContractTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The guard-row statements contract on one real database of its own; subclasses name the kind. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcStatementsIT extends AbstractGuardedStatementsContractTest {

    private TestDatabase db;

    abstract TestDatabase.Kind kind();

    @BeforeAll
    void createDatabase() throws Exception {
        db = TestDatabase.create(kind());
        JdbcGuardedStore.open(db.options().poolSize(2)).close(); // applies the migrations once
    }

    @AfterAll
    void dropDatabase() throws Exception {
        if (db != null) {
            db.close();
        }
    }

    @Override
    protected GuardedStatements newStatements(GuardRule rule) {
        return JdbcGuardedStore.open(db.options().rule(rule).poolSize(8).migrate(false));
    }

    @Override
    protected void adminExecute(String sql) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    protected long adminQueryLong(String sql) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
