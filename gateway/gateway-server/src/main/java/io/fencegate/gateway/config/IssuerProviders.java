package io.fencegate.gateway.config;

import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.IssuerSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The issuer types on the classpath, found through {@link ServiceLoader}: a backend registers its
 * {@link IssuerProvider} in {@code META-INF/services/io.fencegate.issuer.spi.IssuerProvider} and
 * the gateway serves {@code issuer: {type: <its type>}} without a line of gateway code.
 */
public final class IssuerProviders {
    /**
     * The order messages have always listed the types fencegate ships in (docs/gateway.md's);
     * any other type follows them, by name. Only the order of words in a message depends on it.
     */
    private static final List<String> LISTED_FIRST = List.of("zookeeper", "redis", "sql", "embedded-zookeeper");

    private final Map<String, IssuerProvider<?>> byType;

    private IssuerProviders(Map<String, IssuerProvider<?>> byType) {
        this.byType = byType;
    }

    /**
     * Every provider the thread's context class loader sees (the application's, in a gateway
     * process; a test may add one), else this class's; two with one type is an error.
     */
    public static IssuerProviders discover() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        ClassLoader loader = context != null ? context : IssuerProviders.class.getClassLoader();
        List<IssuerProvider<?>> found = new ArrayList<>();
        for (IssuerProvider<?> p : ServiceLoader.load(IssuerProvider.class, loader)) {
            found.add(p);
        }
        found.sort(Comparator.comparingInt((IssuerProvider<?> p) -> listPosition(p.issuerType().name()))
                .thenComparing(p -> p.issuerType().name()));
        Map<String, IssuerProvider<?>> byType = new LinkedHashMap<>();
        for (IssuerProvider<?> p : found) {
            IssuerProvider<?> other = byType.putIfAbsent(p.issuerType().name(), p);
            if (other != null) {
                throw new IllegalStateException("two issuer providers for type '" + p.issuerType().name() + "': "
                        + other.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return new IssuerProviders(java.util.Collections.unmodifiableMap(byType));
    }

    private static int listPosition(String type) {
        int i = LISTED_FIRST.indexOf(type);
        return i >= 0 ? i : LISTED_FIRST.size();
    }

    public Optional<IssuerProvider<?>> forType(String type) {
        return Optional.ofNullable(byType.get(type));
    }

    /** The provider whose settings {@code settings} are. */
    @SuppressWarnings("unchecked")
    public <S extends IssuerSettings> IssuerProvider<S> forSettings(S settings) {
        for (IssuerProvider<?> p : byType.values()) {
            if (p.issuerType().settings() == settings.getClass()) {
                return (IssuerProvider<S>) p;
            }
        }
        throw new IllegalStateException("no issuer provider for " + settings.getClass().getName());
    }

    /** The known types, for error messages: {@code zookeeper, redis, sql or embedded-zookeeper}. */
    public String types() {
        List<String> names = List.copyOf(byType.keySet());
        if (names.size() < 2) {
            return names.isEmpty() ? "(no issuer type on the classpath)" : names.get(0);
        }
        return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    /** The known type names, for "did you mean" hints. */
    Set<String> typeNames() {
        return byType.keySet();
    }

    /** Every provider, for the keys an environment override may set on an issuer of unknown type. */
    Iterable<IssuerProvider<?>> all() {
        return byType.values();
    }
}
