package io.fencegate.store.postgres;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStatements;
import io.fencegate.store.testkit.AbstractGuardedStatementsContractTest;
import io.vertx.core.Vertx;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.ds.PGSimpleDataSource;

/** The guard-row statements contract through the reactive store on the real PostgreSQL, in a schema of its own. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgGuardedStatementsIT extends AbstractGuardedStatementsContractTest {
    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private final String schema = "fg_pgs_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private Vertx vertx;

    @BeforeAll
    void createSchema() throws Exception {
        try (Connection c = DriverManager.getConnection(URL, "postgres", ""); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(URL + "?currentSchema=" + schema);
        ds.setUser("postgres");
        FencegateSchema.migrate(ds);
        vertx = Vertx.vertx();
    }

    @AfterAll
    void dropSchema() throws Exception {
        if (vertx != null) {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
        try (Connection c = DriverManager.getConnection(URL, "postgres", ""); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @Override
    protected GuardedStatements newStatements(GuardRule rule) {
        return PgGuardedStore.open(vertx, new PgStoreOptions().database("test").schema(schema).name("statements")
                .rule(rule).poolSize(8));
    }

    private Connection connect() throws Exception {
        return DriverManager.getConnection(URL + "?currentSchema=" + schema, "postgres", "");
    }

    @Override
    protected void adminExecute(String sql) throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    protected long adminQueryLong(String sql) throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
