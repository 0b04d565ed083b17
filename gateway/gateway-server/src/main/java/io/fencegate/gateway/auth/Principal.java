package io.fencegate.gateway.auth;

import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Set;

/**
 * Who is calling, and what they may touch. Routes ask {@link #mayUseStore} / {@link #mayUseLock}
 * (the gateway's item routes through {@code TokenGate}, which answers 403).
 */
public final class Principal {
    static final String CONTEXT_KEY = "fencegate.principal";

    /** The caller when authentication is off (loopback only): may use everything. */
    public static final Principal ANONYMOUS = new Principal("anonymous", true, Set.of(), true, List.of());

    private final String name;
    private final boolean allStores;
    private final Set<String> stores;
    private final boolean allLocks;
    private final List<String> lockPrefixes;

    private Principal(String name, boolean allStores, Set<String> stores, boolean allLocks, List<String> lockPrefixes) {
        this.name = name;
        this.allStores = allStores;
        this.stores = stores;
        this.allLocks = allLocks;
        this.lockPrefixes = lockPrefixes;
    }

    /** The principal of a configured key: what the auth handler attaches for it. */
    public static Principal of(ApiKey key) {
        return new Principal(key.name(),
                key.stores().contains(ApiKey.ALL), Set.copyOf(key.stores()),
                key.lockPrefixes().contains(ApiKey.ALL), List.copyOf(key.lockPrefixes()));
    }

    /**
     * The principal the auth handler attached to this request. Fails closed: a route reached without
     * the handler is a wiring bug, not an anonymous caller.
     */
    public static Principal of(RoutingContext ctx) {
        Principal p = ctx.get(CONTEXT_KEY);
        if (p == null) {
            throw new IllegalStateException("no principal on the request: mount ApiKeyAuthHandler before this route");
        }
        return p;
    }

    /** The key's configured name (safe to log). */
    public String name() {
        return name;
    }

    public boolean mayUseStore(String store) {
        return allStores || stores.contains(store);
    }

    /** A lock is allowed when it starts with one of the key's lock prefixes. */
    public boolean mayUseLock(String lock) {
        if (allLocks) {
            return true;
        }
        for (String prefix : lockPrefixes) {
            if (lock.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The rule for one item of a store, which every {@code /v1/stores} item route applies
     * ({@code TokenGate.permitLock}) and by which the status page shows an item: the store is among
     * the key's stores and the lock guarding the item is under one of its lock prefixes. Locks
     * match by prefix, so asked with a string every lock of a store starts with
     * ({@code StoreBinding.lockPrefix()}), it answers whether the key may use every item of it.
     */
    public boolean mayUseItem(String store, String lock) {
        return mayUseStore(store) && mayUseLock(lock);
    }

    /**
     * Whether some lock under {@code prefix} is under one of the key's lock prefixes: asked before a
     * request whose lock is not known until its body is read, so a key that may use no lock there
     * is refused before a byte of the body is.
     */
    public boolean mayUseSomeLockUnder(String prefix) {
        if (allLocks) {
            return true;
        }
        for (String p : lockPrefixes) {
            if (p.startsWith(prefix) || prefix.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The prefix a lease listing for {@code requested} may run with: the requested one if every
     * lock under it is allowed; narrowed to the key's one lock prefix under it, if it has exactly
     * one (a key for "orders/" asking for everything lists "orders/"); empty otherwise (403).
     */
    public java.util.Optional<String> listablePrefix(String requested) {
        if (mayUseLock(requested)) {
            return java.util.Optional.of(requested);
        }
        List<String> under = lockPrefixes.stream().filter(p -> p.startsWith(requested)).toList();
        return under.size() == 1 ? java.util.Optional.of(under.get(0)) : java.util.Optional.empty();
    }

    @Override
    public String toString() {
        return "Principal[" + name + "]";
    }
}
