package io.fencegate.gateway;

import io.fencegate.store.GuardedStatements;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.NamedSql;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One store as the gateway serves it under {@code /v1/stores/{name}}.
 *
 * @param name       the store's name in the URL
 * @param store      the guarded store
 * @param statements the SQL stores' guard-row transactions; null for a store without SQL (files)
 * @param named      statements from config, by name, for {@code POST .../statements/{name}}
 * @param lock       the one lock that guards every item of this store, or null: each item is
 *                   guarded by its own lock {@code {name}/{key}}
 */
public record StoreBinding(
        String name, GuardedStore store, GuardedStatements statements, Map<String, NamedSql> named, String lock) {

    public StoreBinding {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(store, "store");
        named = named == null ? Map.of() : Map.copyOf(named);
        if (!named.isEmpty() && statements == null) {
            throw new IllegalArgumentException("store '" + name + "' has named statements but no SQL backend");
        }
    }

    /** A store whose items each have their own lock, with no statements. */
    public static StoreBinding of(String name, GuardedStore store) {
        return new StoreBinding(name, store, null, Map.of(), null);
    }

    /** The lock a token must have been granted for to touch {@code key} (DESIGN.md). */
    public String lockFor(String key) {
        return lock != null ? lock : name + "/" + key;
    }

    /**
     * What the lock of every item of this store starts with: the store's one lock, or
     * {@code {name}/}. A key whose lock prefixes cover it may use every item of the store.
     */
    public String lockPrefix() {
        return lock != null ? lock : name + "/";
    }

    /**
     * The longest lock, in UTF-8 bytes, that guards an item of this store whose key is within
     * {@code maxKeyBytes} (the gateway's limit) and the store's own key limit.
     */
    public int maxLockBytes(int maxKeyBytes) {
        return lock != null ? lock.getBytes(StandardCharsets.UTF_8).length
                : name.getBytes(StandardCharsets.UTF_8).length + 1 + Math.min(maxKeyBytes, store.limits().maxKeyBytes());
    }

    public Optional<NamedSql> statement(String statementName) {
        return Optional.ofNullable(named.get(statementName));
    }
}
