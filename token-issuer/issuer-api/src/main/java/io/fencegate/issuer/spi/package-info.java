/**
 * How a server finds and opens lease issuers: an {@link io.fencegate.issuer.spi.IssuerProvider}
 * per issuer type, registered for {@link java.util.ServiceLoader}, whose settings are a record of
 * the keys that type accepts. What it shares with the store SPI (setting errors, exclusive paths)
 * is in {@code io.fencegate.spi}; see docs/ARCHITECTURE.md, "Adding an issuer backend".
 */
package io.fencegate.issuer.spi;
