package io.fencegate.store.jdbc;

/** The guard-row statements contract through the JDBC store on H2. */
class H2JdbcStatementsIT extends AbstractJdbcStatementsIT {

    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }
}
