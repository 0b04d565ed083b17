package io.fencegate.issuer.redis;

/** Counter loss with the shared mark in PostgreSQL. */
class PostgresMarkTokenCounterLossIT extends SqlMarkTokenCounterLossContract {
    @Override
    MarkDatabase.Kind kind() {
        return MarkDatabase.Kind.POSTGRES;
    }
}
