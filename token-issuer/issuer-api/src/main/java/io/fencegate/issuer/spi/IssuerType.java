package io.fencegate.issuer.spi;

import java.util.Objects;

/**
 * What selects a provider and what its keys bind to.
 *
 * @param name     the {@code type} in a configuration, e.g. {@code zookeeper}
 * @param settings the record the issuer's other keys bind to, by component name
 */
public record IssuerType<S extends IssuerSettings>(String name, Class<S> settings) {

    public IssuerType {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(settings, "settings");
    }
}
