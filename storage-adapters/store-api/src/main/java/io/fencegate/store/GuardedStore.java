package io.fencegate.store;

import java.util.concurrent.CompletionStage;

/**
 * A key-value store where every write is guarded by a fencing token (see DESIGN.md, "Guarded
 * writes and fenced reads"). Each item keeps {@code token} (of its last applied write) and
 * {@code fence} (the highest token that claimed it, by a write or a fenced read).
 *
 * <p>Every operation is atomic in the backend: the guard and its effect are one statement or
 * one transaction holding the item's row, also for the first write of an item. Invalid
 * arguments (see {@link StoreLimits}) fail the stage with {@link IllegalArgumentException} and
 * change nothing; an unreachable backend fails it with {@link StoreUnavailableException}.
 */
public interface GuardedStore extends AutoCloseable {

    /** Stores {@code value} under {@code key} if {@link #rule()} admits {@code token}; then token = fence = {@code token}. */
    CompletionStage<WriteResult> write(String key, long token, byte[] value);

    /**
     * Whether {@link #openWrite} takes a value in pieces without holding it whole in memory. A
     * front end that receives values in pieces (the gateway) streams them only into such a store;
     * for others it reads the value whole and calls {@link #write}.
     */
    default boolean streamsValues() {
        return false;
    }

    /**
     * Opens a write of {@code key} with {@code token} whose value arrives in pieces, for a store
     * that {@link #streamsValues()}; the guard is judged at {@link StreamedWrite#commit}, as by
     * {@link #write}. {@code length} is the value's size if known, or -1: a known length over
     * {@link StoreLimits#maxValueBytes} fails the stage with {@link IllegalArgumentException}, as a
     * bad key or token does. A store that does not stream fails it with {@link UnsupportedOperationException}.
     */
    default CompletionStage<StreamedWrite> openWrite(String key, long token, long length) {
        return java.util.concurrent.CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getSimpleName() + " does not stream values"));
    }

    /**
     * Several independent guarded writes ({@link GuardedOp}: puts, and deletes with a null value),
     * each judged and answered on its own under {@link #rule()}, exactly as {@link #write} or
     * {@link #delete} would judge it: not a transaction, and one write's refusal or failure leaves
     * the others alone. The answers are in {@code ops}' order. A store that can judge many rows in
     * one statement or transaction sends them together (fewer round trips, one commit), still one
     * guarded write per item; by default each goes on its own.
     *
     * <p>The keys must be distinct (a caller that writes one key twice orders those writes itself):
     * a repeated key throws {@link IllegalArgumentException} and nothing is written. An op with a bad
     * key, token or value fails its own stage with {@link IllegalArgumentException}, as in {@link #write}.
     */
    default java.util.List<CompletionStage<WriteResult>> writeAll(java.util.List<GuardedOp> ops) {
        io.fencegate.store.backend.GuardInputs.requireDistinctKeys(ops);
        return ops.stream().map(op -> op.isDelete() ? delete(op.key(), op.token()) : write(op.key(), op.token(), op.value()))
                .toList();
    }

    /** Deletes {@code key} under the same guard, leaving a tombstone that keeps the token. */
    CompletionStage<WriteResult> delete(String key, long token);

    /** A plain read: no token, no claim, never stale. */
    CompletionStage<ReadResult> read(String key);

    /**
     * A fenced read: refused ({@link Stale}) if {@code fence > token}; otherwise raises the fence
     * to {@code token} (a missing item gets a fence-only row) and answers like {@link #read}.
     * From then on no lower token can write the item.
     */
    CompletionStage<ReadResult> fencedRead(String key, long token);

    /**
     * Whether {@link #transact} and {@link #fencedReadAll} are supported. A front end asks first
     * and refuses the request with the store's reason ({@link #transactionsUnsupportedReason}).
     */
    default boolean transacts() {
        return false;
    }

    /** Why this store has no {@link #transact}: shown to the caller that asked for one. */
    default String transactionsUnsupportedReason() {
        return getClass().getSimpleName() + " does not support transactions across items";
    }

    /**
     * Applies the puts and deletes of {@code ops} (each with its own key and token) in one
     * transaction: all of them if every item's guard admits its token under {@link #rule()}
     * ({@link Committed}), none if any refuses ({@link Refused}, naming every refused item). The
     * items are locked in one canonical order (unsigned byte order of their UTF-8 keys), so
     * concurrent transactions over shared items wait for each other and never deadlock.
     *
     * <p>Refused with {@link IllegalArgumentException}, changing nothing: no ops, more than
     * {@link GuardedOp#MAX_ITEMS}, a key twice, a bad key, token or value, values over
     * {@link StoreLimits#maxValueBytes} together. A store that does not {@link #transacts()} fails
     * the stage with {@link UnsupportedOperationException}.
     */
    default CompletionStage<TransactionResult> transact(java.util.List<GuardedOp> ops) {
        return java.util.concurrent.CompletableFuture.failedFuture(
                new UnsupportedOperationException(transactionsUnsupportedReason()));
    }

    /**
     * Fenced reads of several items in one transaction: if every item admits its token
     * ({@code fence <= token}), every fence is raised to its token and the items are answered
     * ({@link Claimed}); if any refuses, no fence is raised ({@link Refused}). Locks, checks and
     * failures as {@link #transact}.
     */
    default CompletionStage<ClaimResult> fencedReadAll(java.util.List<ItemClaim> claims) {
        return java.util.concurrent.CompletableFuture.failedFuture(
                new UnsupportedOperationException(transactionsUnsupportedReason()));
    }

    GuardRule rule();

    /** The limits this store enforces (a front end such as the gateway checks them first). */
    default StoreLimits limits() {
        return StoreLimits.DEFAULT;
    }

    @Override
    void close();
}
