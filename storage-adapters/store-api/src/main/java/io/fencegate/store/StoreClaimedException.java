package io.fencegate.store;

/**
 * A store was refused at open: its database, schema or directory belongs to a store with another
 * name. Items are keyed by the bare key while locks ({@code store/key}) and API-key scopes are
 * per store, so two names on one backend would write each other's items under each other's
 * locks. The message names both stores.
 */
public final class StoreClaimedException extends IllegalStateException {

    private final String store;
    private final String owner;

    public StoreClaimedException(String store, String owner, String where) {
        this(store, owner, where, "it already belongs to store '" + owner
                + "' (one store per database/schema/directory; give '" + store + "' its own schema, database or directory)");
    }

    /** {@code store 'S' cannot use WHERE: WHY}, for a claim refused for another reason than the owner's name. */
    public StoreClaimedException(String store, String owner, String where, String why) {
        super("store '" + store + "' cannot use " + where + ": " + why);
        this.store = store;
        this.owner = owner;
    }

    /** The store that was refused. */
    public String store() {
        return store;
    }

    /** The store the backend belongs to. */
    public String owner() {
        return owner;
    }
}
