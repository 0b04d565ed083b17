package io.fencegate.issuer.sql;

/**
 * The LeaseIssuer contract on MariaDB with {@code allowMultiQueries=false} in the URL: the issuer
 * sends a grant's and a release's statements one by one (the transaction, not the single request).
 */
class MariaDbSeparateStatementsSqlLeaseIssuerIT extends SqlLeaseIssuerContract {
    @Override
    SqlTestDatabase.Kind kind() {
        return SqlTestDatabase.Kind.MARIADB;
    }

    @Override
    String urlOptions() {
        return "?allowMultiQueries=false";
    }

    /**
     * Half {@link MariaDbSqlLeaseIssuerIT}'s concurrent acquisitions (still 8 threads on 4 locks across
     * two instances): the same statements in the same transactions on the same database, only sent
     * one by one.
     */
    @Override
    protected int acquisitionsPerThread() {
        return 100;
    }
}
