package io.fencegate.store.jdbc;

/** The guard-row statements contract through the JDBC store on MariaDb. */
class MariaDbJdbcStatementsIT extends AbstractJdbcStatementsIT {

    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
