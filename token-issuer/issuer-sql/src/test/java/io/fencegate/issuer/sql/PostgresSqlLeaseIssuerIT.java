package io.fencegate.issuer.sql;

/** The LeaseIssuer contract on Postgres (postgres). */
class PostgresSqlLeaseIssuerIT extends SqlLeaseIssuerContract {
    @Override
    SqlTestDatabase.Kind kind() {
        return SqlTestDatabase.Kind.POSTGRES;
    }
}
