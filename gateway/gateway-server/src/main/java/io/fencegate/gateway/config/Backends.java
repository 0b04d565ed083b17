package io.fencegate.gateway.config;

import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.spi.IssuerContext;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.spi.ClaimRefusedException;
import io.fencegate.spi.ExclusivePath;
import io.fencegate.spi.InvalidSettingException;
import io.fencegate.store.NamedSql;
import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import io.fencegate.store.spi.StoreSettings;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The issuer and stores a config names, opened and owned: {@link #close()} ends leases and sessions
 * and closes pools, in reverse order of opening. Every key is checked before anything is opened;
 * a failure names the key. What each backend type accepts and how it opens is its own business
 * ({@link IssuerProvider}, {@link StoreProvider}); this class only orders, names and owns.
 */
public final class Backends implements AutoCloseable {
    private static final Pattern STORE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final LeaseIssuer issuer;
    private final List<StoreBinding> stores;
    private final List<AutoCloseable> owned;
    private final String description;

    private Backends(LeaseIssuer issuer, List<StoreBinding> stores, List<AutoCloseable> owned, String description) {
        this.issuer = issuer;
        this.stores = stores;
        this.owned = owned;
        this.description = description;
    }

    public LeaseIssuer issuer() {
        return issuer;
    }

    public List<StoreBinding> stores() {
        return stores;
    }

    /** One line for the start-up message: the issuer and the store names. */
    public String describe() {
        return description;
    }

    /** Checks every key of {@code config}; throws {@link ConfigException} naming every bad one. */
    public static void validate(GatewayConfig config) {
        ConfigProblems problems = new ConfigProblems();
        if (config.issuer() == null) {
            problems.add(new ConfigException("issuer.type", "required: " + IssuerProviders.discover().types()));
        } else {
            problems.check(() -> validateIssuer(config.issuer()));
        }
        if (config.stores().isEmpty()) {
            problems.add(new ConfigException("stores", "configure at least one store"));
        }
        config.stores().forEach((name, settings) -> problems.check(() -> validateStore(name, settings)));
        problems.throwIfAny();
    }

    static void validateIssuer(IssuerSettings issuer) {
        try {
            issuer.validate();
        } catch (InvalidSettingException e) {
            throw ConfigException.at("issuer", e);
        }
    }

    static void validateStore(String name, StoreSettings settings) {
        String at = "stores." + name;
        if (!STORE_NAME.matcher(name).matches()) {
            throw new ConfigException(at, "a store name is 1-64 of A-Z a-z 0-9 _ -");
        }
        try {
            settings.validate();
        } catch (InvalidSettingException e) {
            throw ConfigException.at(at, e);
        }
    }

    /**
     * Validates, checks every piece of exclusive local state ({@link #exclusivePaths}) and claims
     * the gateway's own, then opens the issuer and every store (each backend claims its own state
     * as it opens it); on a failure closes what was opened. The check comes first and the
     * gateway's claims are released last: a second gateway on the same data fails before it opens
     * anything (an embedded ZooKeeper started on a live data directory writes its own snapshot and
     * log there).
     * Reactive stores run on {@code vertx}, which the caller owns and closes after {@link #close()}.
     */
    public static Backends open(GatewayConfig config, Vertx vertx) throws Exception {
        validate(config);
        StoreProviders providers = StoreProviders.discover();
        List<AutoCloseable> owned = new ArrayList<>();
        List<LocalClaims.Wanted> backendState = exclusivePaths(config);
        owned.add(LocalClaims.claim(config.localState().stream().map(p -> new LocalClaims.Wanted(p.key(), p)).toList(),
                backendState));
        try {
            OpenedIssuer issuer;
            try {
                issuer = openIssuer(config.issuer(), IssuerProviders.discover().forSettings(config.issuer()), owned);
            } catch (InvalidSettingException e) {
                throw ConfigException.at("issuer", e);
            } catch (ClaimRefusedException e) {
                throw refused("issuer", e);
            }
            owned.add(issuer.issuer());
            List<StoreBinding> stores = new ArrayList<>();
            for (Map.Entry<String, StoreSettings> e : config.stores().entrySet()) {
                stores.add(openStore(e.getKey(), e.getValue(), providers.forSettings(e.getValue()), vertx, owned));
            }
            checkKeyLimit(config, stores);
            String description = "issuer: " + issuer.description() + "; stores: " + String.join(", ", config.stores().keySet());
            return new Backends(issuer.issuer(), List.copyOf(stores), owned, description);
        } catch (Exception | Error e) {
            closeAll(owned, e);
            throw e;
        }
    }

    /**
     * Opens the issuer. What its provider registers (an embedded server, a pool) joins {@code owned}
     * before the issuer does, so it is closed after it.
     */
    private static <S extends IssuerSettings> OpenedIssuer openIssuer(S settings, IssuerProvider<S> provider,
            List<AutoCloseable> owned) throws Exception {
        IssuerContext context = owned::add;
        return provider.open(settings, context);
    }

    /** The issuer's local state, then each store's, keys placed in the config. */
    private static List<LocalClaims.Wanted> exclusivePaths(GatewayConfig config) {
        List<LocalClaims.Wanted> wanted = new ArrayList<>();
        config.issuer().exclusivePaths().forEach(p -> wanted.add(new LocalClaims.Wanted(at("issuer", p), p)));
        config.stores().forEach((name, settings) -> settings.exclusivePaths()
                .forEach(p -> wanted.add(new LocalClaims.Wanted(at("stores." + name, p), p))));
        return wanted;
    }

    private static String at(String section, ExclusivePath p) {
        return p.key() == null ? section : section + "." + p.key();
    }

    /** A backend's own claim refused (a holder that came after the check), under its section. */
    private static ConfigException refused(String section, ClaimRefusedException e) {
        return LocalClaims.refused(new LocalClaims.Wanted(at(section, e.wanted()), e.wanted()), e);
    }

    private static <S extends StoreSettings> StoreBinding openStore(
            String name, S settings, StoreProvider<S> provider, Vertx vertx, List<AutoCloseable> owned) {
        String at = "stores." + name;
        OpenedStore opened;
        try {
            opened = provider.open(settings, new Context(name, vertx, owned));
        } catch (InvalidSettingException e) {
            throw ConfigException.at(at, e);
        } catch (StoreClaimedException e) {
            throw new ConfigException(at + ": " + e.getMessage(), e);
        } catch (ClaimRefusedException e) {
            throw refused(at, e);
        }
        owned.add(opened.store());
        Map<String, NamedSql> named = new LinkedHashMap<>();
        settings.statements().forEach((statement, sql) -> named.put(statement, NamedSql.parse(sql)));
        return new StoreBinding(name, opened.store(), opened.statements(), named, settings.lock());
    }

    /** What a provider gets: the store's name, the gateway's Vert.x, and the list of what to close. */
    private record Context(String name, Vertx vertx, List<AutoCloseable> owned) implements StoreContext {
        @Override
        public <T> T service(Class<T> type) {
            if (type == Vertx.class) {
                return type.cast(vertx);
            }
            throw new IllegalStateException("the gateway offers no " + type.getName() + " to stores");
        }

        @Override
        public void closeOnStop(AutoCloseable resource) {
            owned.add(resource);
        }
    }

    /**
     * A key the gateway accepts must fit every store it can address: a limits.maxKeyBytes above a
     * store's own limit (an SQL store's key column holds 2048 bytes) would accept keys the store
     * can never write.
     */
    private static void checkKeyLimit(GatewayConfig config, List<StoreBinding> stores) {
        Integer configured = config.limits() == null ? null : config.limits().maxKeyBytes();
        if (configured == null) {
            return;
        }
        for (StoreBinding b : stores) {
            int storeLimit = b.store().limits().maxKeyBytes();
            if (configured > storeLimit) {
                throw new ConfigException("limits.maxKeyBytes", configured + " is more than store '" + b.name()
                        + "' takes (" + storeLimit + " bytes): lower it to at most " + storeLimit);
            }
        }
    }

    private static void closeAll(List<AutoCloseable> owned, Throwable failure) {
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }

    @Override
    public void close() {
        RuntimeException failure = new RuntimeException("closing backends failed");
        closeAll(owned, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }
}
