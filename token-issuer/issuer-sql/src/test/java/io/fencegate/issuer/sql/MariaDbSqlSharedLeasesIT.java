package io.fencegate.issuer.sql;

/** Read-write leases and fenced semaphores on MariaDB. */
class MariaDbSqlSharedLeasesIT extends SqlSharedLeasesContract {
    @Override
    SqlTestDatabase.Kind kind() {
        return SqlTestDatabase.Kind.MARIADB;
    }
}
