package io.fencegate.store.spi;

/**
 * One kind of guarded store, as a server (the gateway) finds it: through {@link java.util.ServiceLoader},
 * from a line naming the provider class in {@code META-INF/services/io.fencegate.store.spi.StoreProvider}.
 * A new backend is a new module with a provider and that one line; no server code changes.
 *
 * <p>The server reads a store's configuration, finds the provider whose {@link #storeType()} the
 * configuration names, binds the remaining keys to {@link StoreType#settings()} (a record: its
 * components are the keys this store type accepts, anything else is refused), calls
 * {@link StoreSettings#validate()} before opening anything, then {@link #open}.
 *
 * @param <S> this store type's settings
 */
public interface StoreProvider<S extends StoreSettings> {

    /** Its {@code type} and settings record: {@code new StoreType<>("files", FilesStoreSettings.class)}. */
    StoreType<S> storeType();

    /**
     * Opens the store {@code context.name()} as {@code settings} describe it (already validated).
     * Whatever it opens that must be closed when the server stops is either the returned store or
     * registered with {@link StoreContext#closeOnStop}.
     *
     * @throws InvalidSettingException a setting is wrong in a way only opening shows (a missing
     *         directory, an unreachable database), naming the key or, with none, the whole store
     * @throws io.fencegate.store.StoreClaimedException the place already belongs to another store
     */
    OpenedStore open(S settings, StoreContext context);
}
