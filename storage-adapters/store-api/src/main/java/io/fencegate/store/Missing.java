package io.fencegate.store;

/**
 * The item does not exist: never written, deleted (a tombstone), or only claimed by a fenced read.
 *
 * @param token the token of its last write or delete, 0 if none
 * @param fence the highest token that has claimed it, 0 if none
 */
public record Missing(long token, long fence) implements ReadResult {
}
