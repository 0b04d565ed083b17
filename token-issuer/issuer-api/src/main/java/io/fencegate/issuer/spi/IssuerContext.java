package io.fencegate.issuer.spi;

/** What the server gives a provider to open its issuer with. */
public interface IssuerContext {

    /**
     * Closes {@code resource} when the server stops, after the issuer and everything opened after
     * it (reverse order): an embedded server, a connection pool the issuer uses.
     */
    void closeOnStop(AutoCloseable resource);
}
