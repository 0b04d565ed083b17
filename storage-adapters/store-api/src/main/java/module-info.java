/**
 * fencegate's guarded store: the API applications use ({@code io.fencegate.store}) and the SPI
 * servers open backends through ({@code io.fencegate.store.spi}). What the backends share
 * ({@code io.fencegate.store.backend}) is exported to the store modules alone, so it never becomes
 * API an application could come to depend on.
 */
module io.fencegate.store {
    requires transitive io.fencegate.spi;

    exports io.fencegate.store;
    exports io.fencegate.store.spi;
    exports io.fencegate.store.backend to
            io.fencegate.store.files,
            io.fencegate.store.jdbc,
            io.fencegate.store.postgres,
            io.fencegate.store.testkit;
}
