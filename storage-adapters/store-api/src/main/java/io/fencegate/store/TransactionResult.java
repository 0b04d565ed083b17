package io.fencegate.store;

/** The outcome of a {@link GuardedStore#transact transaction}: {@link Committed} or {@link Refused}. */
public sealed interface TransactionResult permits Committed, Refused {
}
