package io.fencegate.issuer.redis;

/** Counter loss with the shared mark in MariaDB. */
class MariaDbMarkTokenCounterLossIT extends SqlMarkTokenCounterLossContract {
    @Override
    MarkDatabase.Kind kind() {
        return MarkDatabase.Kind.MARIADB;
    }
}
