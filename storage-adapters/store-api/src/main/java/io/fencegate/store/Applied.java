package io.fencegate.store;

/**
 * The write (or delete) took effect.
 *
 * @param previousToken the token of the item's last write before this one, 0 if it never had one
 */
public record Applied(long previousToken) implements WriteResult {
}
