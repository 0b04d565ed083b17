package io.fencegate.store.backend;

/**
 * What a store holds for one item (or one guard row) at the moment it decides: read under the
 * item's lock, so the decision and the change that follows see the same state.
 *
 * @param token the token of the item's last write or delete, 0 if none
 * @param fence the highest token that has claimed the item, {@code >= token}, 0 if none
 * @param value the item's content; null for a missing item, a tombstone, a fence-only row or a
 *              guard row (which has no value)
 */
public record ItemState(long token, long fence, byte[] value) {

    /** An item that has no row (file) at all: never written, never claimed. */
    public static final ItemState ABSENT = new ItemState(0, 0, null);

    /** A row without a value: a guard row, or an item whose value the decision does not need. */
    public static ItemState of(long token, long fence) {
        return new ItemState(token, fence, null);
    }
}
