package io.fencegate.store.jdbc;

/** The guard-row statements contract through the JDBC store on Postgres. */
class PostgresJdbcStatementsIT extends AbstractJdbcStatementsIT {

    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
