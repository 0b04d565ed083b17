package io.fencegate.issuer.sql;

/** The LeaseIssuer contract on H2 (h2). */
class H2SqlLeaseIssuerIT extends SqlLeaseIssuerContract {
    @Override
    SqlTestDatabase.Kind kind() {
        return SqlTestDatabase.Kind.H2;
    }
}
