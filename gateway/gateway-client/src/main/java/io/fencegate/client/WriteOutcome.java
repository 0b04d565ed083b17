package io.fencegate.client;

/** What a guarded PUT or DELETE did: {@link Applied} or {@link Stale}. */
public sealed interface WriteOutcome permits WriteOutcome.Applied, Stale {

    /** The write took effect; {@code previousToken} is the token of the write it replaced (0 if none). */
    record Applied(long token, long previousToken) implements WriteOutcome {}

    default boolean applied() {
        return this instanceof Applied;
    }
}
