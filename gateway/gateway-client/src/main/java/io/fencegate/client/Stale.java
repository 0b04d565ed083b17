package io.fencegate.client;

/**
 * The gateway refused the token (HTTP 409): a higher token has written or claimed the item.
 * Shared by writes, fenced reads and statements because the refusal means the same everywhere.
 *
 * @param currentToken   token of the item's last applied write (0 if none)
 * @param fence          highest token that has claimed the item ({@code >= currentToken})
 * @param attemptedToken the token this call carried
 */
public record Stale(long currentToken, long fence, long attemptedToken)
        implements WriteOutcome, ReadOutcome, StatementOutcome {

    /**
     * True when the item's last write carries our own token: under a {@code strict} store that means a
     * retried write (after a timeout or a 5xx) had in fact applied the first time.
     */
    public boolean alreadyApplied() {
        return currentToken == attemptedToken;
    }
}
