package io.fencegate.store;

/** The outcome of statements run under a guard row: {@link Executed} or {@link Stale}. */
public sealed interface StatementResult permits Executed, Stale {
}
