package io.fencegate.store;

/** The outcome of a {@link GuardedStore#fencedReadAll fenced multi-read}: {@link Claimed} or {@link Refused}. */
public sealed interface ClaimResult permits Claimed, Refused {
}
