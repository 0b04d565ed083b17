package io.fencegate.store;

import java.util.Objects;

/**
 * One item of a {@link GuardedStore#transact transaction}: a put of {@code value} under {@code key},
 * or (value null) a delete that leaves a tombstone, judged by its own token under the store's rule.
 *
 * @param key   the item
 * @param token the token this item is written with (each item its own: locks differ per item)
 * @param value the new content; null for a delete
 */
public record GuardedOp(String key, long token, byte[] value) {

    /** Most items one transaction or one fenced multi-read may carry, in any store. */
    public static final int MAX_ITEMS = 1000;

    public GuardedOp {
        Objects.requireNonNull(key, "key");
    }

    public static GuardedOp put(String key, long token, byte[] value) {
        return new GuardedOp(key, token, Objects.requireNonNull(value, "value"));
    }

    public static GuardedOp delete(String key, long token) {
        return new GuardedOp(key, token, null);
    }

    public boolean isDelete() {
        return value == null;
    }
}
