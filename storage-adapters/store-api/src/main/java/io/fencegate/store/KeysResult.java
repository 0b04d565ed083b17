package io.fencegate.store;

/**
 * The outcome of statements run under the guards of several keys at once, each key with its own
 * token: {@link ExecutedAll} (every guard admitted its token, the statements ran and committed)
 * or {@link Refused} (at least one guard refused: nothing ran, nothing changed).
 */
public sealed interface KeysResult permits ExecutedAll, Refused {
}
