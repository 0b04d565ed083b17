package io.fencegate.store;

/**
 * The guarded statements ran and committed.
 *
 * @param previousToken the guard row's token before this transaction, 0 if it had none
 * @param rows          rows changed by the statements, summed
 */
public record Executed(long previousToken, int rows) implements StatementResult {
}
