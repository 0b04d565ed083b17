package io.fencegate.store.spi;

import java.util.Objects;

/**
 * What selects a provider and what its keys bind to.
 *
 * @param name     the {@code type} in a configuration, e.g. {@code files}
 * @param settings the record the store's other keys bind to, by component name
 */
public record StoreType<S extends StoreSettings>(String name, Class<S> settings) {

    public StoreType {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(settings, "settings");
    }
}
