package io.fencegate.store;

/** The outcome of a read: {@link Found}, {@link Missing}, or (fenced reads only) {@link Stale}. */
public sealed interface ReadResult permits Found, Missing, Stale {
}
