package io.fencegate.store.jdbc;

/** The store contract on the real PostgreSQL at 127.0.0.1:5432, in a schema of its own. */
class PostgresJdbcGuardedStoreIT extends AbstractJdbcContractIT {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
