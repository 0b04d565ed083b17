package io.fencegate.store;

/** The outcome of a guarded write or delete: {@link Applied} or {@link Stale}. */
public sealed interface WriteResult permits Applied, Stale {
}
