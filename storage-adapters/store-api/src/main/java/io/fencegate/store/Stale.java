package io.fencegate.store;

/**
 * The operation was refused by the guard and changed nothing.
 *
 * @param currentToken   the token of the item's last write (0 if it never had one)
 * @param fence          the highest token that has claimed the item, {@code >= currentToken}
 * @param attemptedToken the token the refused operation carried
 */
public record Stale(long currentToken, long fence, long attemptedToken)
        implements WriteResult, ReadResult, StatementResult {

    /**
     * Under {@link GuardRule#STRICT}, a write refused because the item already carries its own
     * token had applied before: a retry after a timeout can stop here.
     */
    public boolean alreadyApplied() {
        return currentToken == attemptedToken;
    }
}
