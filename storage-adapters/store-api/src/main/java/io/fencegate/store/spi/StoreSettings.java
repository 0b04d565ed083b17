package io.fencegate.store.spi;

import io.fencegate.spi.ExclusivePath;
import java.util.List;
import java.util.Map;

/**
 * A store type's configuration: a record whose components are the keys it accepts. Every store
 * type has {@code rule} and {@code lock}; SQL stores add {@code statements}.
 */
public interface StoreSettings {

    /** {@code strict} (the default, also for null) or {@code same-lease}; see {@link Settings#rule}. */
    String rule();

    /** One lock for every item of the store, or null: each item is guarded by {@code {store}/{key}}. */
    String lock();

    /** Named SQL statements (name to SQL with {@code :param} placeholders); only SQL stores have them. */
    default Map<String, String> statements() {
        return Map.of();
    }

    /**
     * Local state this store needs to itself (an embedded database's file), which the server
     * checks before it opens anything; none by default. The provider claims it itself when it
     * opens the store ({@link io.fencegate.spi.LocalClaim}). State several processes may share (a
     * database server, a files store's directory) is not listed.
     */
    default List<ExclusivePath> exclusivePaths() {
        return List.of();
    }

    /**
     * Checks every key without opening anything.
     *
     * @throws InvalidSettingException naming the first bad key
     */
    default void validate() {
        Settings.rule("rule", rule());
        if (lock() != null && lock().isBlank()) {
            throw new InvalidSettingException("lock", "must not be blank (leave it out for one lock per item)");
        }
    }
}
