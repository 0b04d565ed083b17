package io.fencegate.issuer.sql;

/** The LeaseIssuer contract on MariaDB (mariadb). */
class MariaDbSqlLeaseIssuerIT extends SqlLeaseIssuerContract {
    @Override
    SqlTestDatabase.Kind kind() {
        return SqlTestDatabase.Kind.MARIADB;
    }
}
