package io.fencegate.store.backend;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.WriteResult;

/**
 * The guard, written once: DESIGN.md's table as pure functions of an item's locked state and a
 * token. Every store takes its decisions here; what differs per store is only how it locks the
 * item and stores the outcome. (The Postgres one-statement forms must also decide inside SQL, in
 * {@code PostgresGuardSql}; their Java side checks that SQL's answer against these functions.)
 *
 * <table>
 * <caption>operation with token t</caption>
 * <tr><th>operation</th><th>applies iff</th><th>then</th></tr>
 * <tr><td>{@link #write} strict</td><td>fence &lt;= t and token &lt; t</td><td>token = fence = t</td></tr>
 * <tr><td>{@link #write} same-lease</td><td>fence &lt;= t</td><td>token = fence = t</td></tr>
 * <tr><td>{@link #fencedRead}</td><td>fence &lt;= t</td><td>fence = t ({@link #raisesFence})</td></tr>
 * <tr><td>{@link #plainRead}</td><td>always</td><td>nothing changes</td></tr>
 * </table>
 */
public final class GuardDecision {

    private GuardDecision() {}

    /**
     * A write or delete (or guarded statements) with {@code token} on {@code item}:
     * {@link Applied} with the item's token as the previous one, or {@link Stale}, which changes
     * nothing. On Applied the store sets token = fence = {@code token}.
     */
    public static WriteResult write(GuardRule rule, ItemState item, long token) {
        if (rule.admits(token, item.token(), item.fence())) {
            return new Applied(item.token());
        }
        return new Stale(item.token(), item.fence(), token);
    }

    /**
     * For a backend that decided inside its own statement (the Postgres one-statement write):
     * the decision here, checked against whether the backend applied it. A disagreement is a bug
     * in that statement; it is reported as such, never answered as applied or stale.
     */
    public static WriteResult write(GuardRule rule, ItemState item, long token, boolean backendApplied) {
        WriteResult decision = write(rule, item, token);
        if ((decision instanceof Applied) != backendApplied) {
            throw new IllegalStateException("the backend's guard " + (backendApplied ? "applied" : "refused")
                    + " token " + token + " on token " + item.token() + ", fence " + item.fence() + " under " + rule
                    + ": it disagrees with GuardDecision");
        }
        return decision;
    }

    /**
     * A fenced read with {@code token}: {@link Stale} if a higher token has claimed the item;
     * otherwise the item as a read reports it, with its fence raised to {@code token} (a missing
     * item answers {@link Missing} with that fence: the store keeps a fence-only row).
     */
    public static ReadResult fencedRead(ItemState item, long token) {
        if (item.fence() > token) {
            return new Stale(item.token(), item.fence(), token);
        }
        return item.value() == null ? new Missing(item.token(), token) : new Found(item.value(), item.token(), token);
    }

    /** Whether an admitted fenced read must store the raised fence (an equal fence is already there). */
    public static boolean raisesFence(ItemState item, long token) {
        return item.fence() < token;
    }

    /** A plain read: the item as it is, never stale. */
    public static ReadResult plainRead(ItemState item) {
        return item.value() == null ? new Missing(item.token(), item.fence())
                : new Found(item.value(), item.token(), item.fence());
    }
}
