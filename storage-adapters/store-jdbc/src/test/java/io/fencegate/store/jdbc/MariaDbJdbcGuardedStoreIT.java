package io.fencegate.store.jdbc;

/** The store contract on the real MariaDB at 127.0.0.1:3306, in a database of its own. */
class MariaDbJdbcGuardedStoreIT extends AbstractJdbcContractIT {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
