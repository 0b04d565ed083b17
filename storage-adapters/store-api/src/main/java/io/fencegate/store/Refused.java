package io.fencegate.store;

import java.util.List;

/**
 * At least one item's guard refused its token, so nothing of the transaction (or multi-read, or
 * statements under several keys' guards) was applied: no value, no tombstone, no fence, no
 * statement.
 *
 * @param items every refused item, in the order the operations were given; the others would have
 *              passed
 */
public record Refused(List<Item> items) implements TransactionResult, ClaimResult, KeysResult {

    /** One refused item: its key, and the {@link Stale} that refused it ({@code currentToken}, {@code fence}). */
    public record Item(String key, Stale stale) {
    }

    public Refused {
        items = List.copyOf(items);
        if (items.isEmpty()) {
            throw new IllegalArgumentException("a refusal names at least one refused item");
        }
    }
}
