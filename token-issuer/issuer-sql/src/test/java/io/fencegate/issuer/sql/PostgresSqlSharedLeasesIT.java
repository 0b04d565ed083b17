package io.fencegate.issuer.sql;

/** Read-write leases and fenced semaphores on PostgreSQL. */
class PostgresSqlSharedLeasesIT extends SqlSharedLeasesContract {
    @Override
    SqlTestDatabase.Kind kind() {
        return SqlTestDatabase.Kind.POSTGRES;
    }
}
