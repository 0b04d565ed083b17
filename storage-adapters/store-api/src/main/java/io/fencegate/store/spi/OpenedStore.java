package io.fencegate.store.spi;

import io.fencegate.store.GuardedStatements;
import io.fencegate.store.GuardedStore;
import java.util.Objects;

/**
 * An open store, owned by the server from now on (it closes {@code store}).
 *
 * @param store      the guarded store
 * @param statements its guard-row transactions, for named statements; null for a store without SQL
 */
public record OpenedStore(GuardedStore store, GuardedStatements statements) {

    public OpenedStore {
        Objects.requireNonNull(store, "store");
    }

    /** A store that runs no statements. */
    public static OpenedStore of(GuardedStore store) {
        return new OpenedStore(store, null);
    }
}
