package io.fencegate.issuer.sql;

/** Read-write leases and fenced semaphores on H2. */
class H2SqlSharedLeasesIT extends SqlSharedLeasesContract {
    @Override
    SqlTestDatabase.Kind kind() {
        return SqlTestDatabase.Kind.H2;
    }
}
