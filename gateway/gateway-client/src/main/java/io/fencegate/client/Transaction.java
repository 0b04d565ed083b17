package io.fencegate.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Puts and deletes of several items of one store, each with its own token, applied together or not
 * at all ({@code POST /v1/stores/{store}/transactions}). Build it, then commit it once:
 *
 * <pre>{@code
 * TransactionOutcome out = client.transaction("inventory")
 *         .put("sku-1", token, "4".getBytes())
 *         .put("sku-2", token, "9".getBytes())
 *         .delete("reservations/r-17", token)
 *         .commit();
 * if (out instanceof Refused refused) { ... refused.items(): key -> Stale ... }
 * }</pre>
 *
 * Not thread-safe while it is being built; a key may appear once.
 */
public final class Transaction {

    /** One item: a put ({@code value} not null) or a delete. */
    record Item(String key, long token, byte[] value) {}

    private final FencegateClient client;
    private final String store;
    private final List<Item> items = new ArrayList<>();

    Transaction(FencegateClient client, String store) {
        this.client = client;
        this.store = Objects.requireNonNull(store, "store");
    }

    /** Writes {@code value} to {@code key} if {@code token} passes the item's guard. */
    public Transaction put(String key, long token, byte[] value) {
        items.add(new Item(Objects.requireNonNull(key, "key"), token, Objects.requireNonNull(value, "value")));
        return this;
    }

    /** Deletes {@code key} (a tombstone keeps the token) if {@code token} passes the item's guard. */
    public Transaction delete(String key, long token) {
        items.add(new Item(Objects.requireNonNull(key, "key"), token, null));
        return this;
    }

    /** Sends the transaction and waits for the answer, on the calling thread. */
    public TransactionOutcome commit() {
        return client.commit(store, List.copyOf(items));
    }

    /** Sends the transaction from one of the client's threads. */
    public CompletableFuture<TransactionOutcome> commitAsync() {
        return client.commitAsync(store, List.copyOf(items));
    }
}
