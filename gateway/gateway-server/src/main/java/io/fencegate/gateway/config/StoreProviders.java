package io.fencegate.gateway.config;

import io.fencegate.store.spi.StoreProvider;
import io.fencegate.store.spi.StoreSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The store types on the classpath, found through {@link ServiceLoader}: a backend registers its
 * {@link StoreProvider} in {@code META-INF/services/io.fencegate.store.spi.StoreProvider} and the
 * gateway serves {@code type: <its type>} without a line of gateway code.
 */
public final class StoreProviders {
    private final Map<String, StoreProvider<?>> byType;

    private StoreProviders(Map<String, StoreProvider<?>> byType) {
        this.byType = byType;
    }

    /** Every provider the class loader of this class sees; two with one type is an error. */
    public static StoreProviders discover() {
        Map<String, StoreProvider<?>> byType = new LinkedHashMap<>();
        for (StoreProvider<?> p : ServiceLoader.load(StoreProvider.class, StoreProviders.class.getClassLoader())) {
            StoreProvider<?> other = byType.putIfAbsent(p.storeType().name(), p);
            if (other != null) {
                throw new IllegalStateException("two store providers for type '" + p.storeType().name() + "': "
                        + other.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return new StoreProviders(Map.copyOf(byType));
    }

    public Optional<StoreProvider<?>> forType(String type) {
        return Optional.ofNullable(byType.get(type));
    }

    /** The provider whose settings {@code settings} are. */
    @SuppressWarnings("unchecked")
    public <S extends StoreSettings> StoreProvider<S> forSettings(S settings) {
        for (StoreProvider<?> p : byType.values()) {
            if (p.storeType().settings() == settings.getClass()) {
                return (StoreProvider<S>) p;
            }
        }
        throw new IllegalStateException("no store provider for " + settings.getClass().getName());
    }

    /** The known types, sorted, for error messages: {@code files, jdbc, postgres}. */
    public String types() {
        return String.join(", ", byType.keySet().stream().sorted().toList());
    }

    /** The known type names, for "did you mean" hints. */
    java.util.Set<String> typeNames() {
        return byType.keySet();
    }

    /** Every settings record, for the keys an environment override may set on a store of unknown type. */
    Iterable<StoreProvider<?>> all() {
        return byType.values();
    }
}
