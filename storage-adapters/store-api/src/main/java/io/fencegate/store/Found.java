package io.fencegate.store;

/**
 * The item exists.
 *
 * @param value the item's content
 * @param token the token of the write that stored it
 * @param fence the highest token that has claimed the item ({@code >= token}); after a fenced
 *              read, the read's token
 */
public record Found(byte[] value, long token, long fence) implements ReadResult {
}
