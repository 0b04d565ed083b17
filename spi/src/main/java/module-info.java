/** What the issuer and store SPIs share; JDK only. */
module io.fencegate.spi {
    exports io.fencegate.spi;
}
