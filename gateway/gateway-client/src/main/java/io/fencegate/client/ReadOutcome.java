package io.fencegate.client;

/** What a GET answered: {@link Value}, {@link NotFound}, or, for a fenced read only, {@link Stale}. */
public sealed interface ReadOutcome permits ReadOutcome.Value, ReadOutcome.NotFound, Stale {

    /** The item's bytes and the token of its last write. */
    record Value(byte[] bytes, long token) implements ReadOutcome {}

    /** No such item (or a tombstone). A fenced read still claimed it. */
    record NotFound() implements ReadOutcome {}
}
