/**
 * fencegate's leases with fencing tokens: the API applications use ({@code io.fencegate.issuer})
 * and the SPI servers open issuers through ({@code io.fencegate.issuer.spi}). What the issuer
 * backends share ({@code io.fencegate.issuer.backend}: {@code AbstractLeaseIssuer} and its
 * helpers) is exported to the issuer modules alone, so it never becomes API an application could
 * come to depend on.
 */
module io.fencegate.issuer {
    requires transitive io.fencegate.spi;
    requires org.slf4j;

    exports io.fencegate.issuer;
    exports io.fencegate.issuer.spi;
    exports io.fencegate.issuer.backend to
            io.fencegate.issuer.zookeeper,
            io.fencegate.issuer.redis,
            io.fencegate.issuer.sql;
}
