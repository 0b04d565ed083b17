/** What the issuer and store SPIs share; JDK only. */
module io.fencegate.spi {
    requires java.sql;

    exports io.fencegate.spi;
}
