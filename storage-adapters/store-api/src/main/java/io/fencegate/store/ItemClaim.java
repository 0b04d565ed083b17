package io.fencegate.store;

import java.util.Objects;

/**
 * One item of a {@link GuardedStore#fencedReadAll fenced multi-read}: the item and the token that
 * claims it.
 */
public record ItemClaim(String key, long token) {

    public ItemClaim {
        Objects.requireNonNull(key, "key");
    }
}
