package io.fencegate.store.jdbc;

import io.fencegate.store.ExecutedAll;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.Refused;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.ItemState;
import io.fencegate.store.backend.ItemTransactions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Several keys guarded in one transaction, the part both library shapes share (guard rows,
 * token columns): the input checks, the one lock order, and the all-or-nothing decision over the
 * locked states, each key judged by its own guard under the rule ({@link GuardDecision#write}).
 */
final class KeyGuards {

    private KeyGuards() {}

    /**
     * The keys of {@code tokens} in the order to lock them: {@link ItemTransactions#KEY_ORDER},
     * the unsigned byte order of their UTF-8 encodings, the order {@code MultiLock} takes its locks
     * in and the gateway's transactions lock their items in. Two transactions over crossing key
     * sets ({A, B} and {B, A}) both lock A first, so the second queues on A while holding
     * nothing, and neither waits for what the other holds: no deadlock.
     */
    static List<String> lockOrder(Map<String, Long> tokens) {
        if (tokens == null || tokens.isEmpty()) {
            throw new IllegalArgumentException("tokens: at least one key is needed");
        }
        if (tokens.size() > GuardedOp.MAX_ITEMS) {
            throw new IllegalArgumentException("tokens: " + tokens.size() + " keys are over the limit of "
                    + GuardedOp.MAX_ITEMS + " in one transaction");
        }
        tokens.forEach((key, token) -> {
            if (token == null) {
                throw new IllegalArgumentException("tokens: key '" + key + "' has no token");
            }
            StoreLimits.DEFAULT.checkGuarded(key, token);
        });
        List<String> keys = new ArrayList<>(tokens.keySet());
        keys.sort(ItemTransactions.KEY_ORDER);
        return keys;
    }

    /**
     * Refused naming every key whose guard refuses its token (in the map's order), or null if
     * every guard admits: then the caller runs the work and advances each guard to its token.
     */
    static Refused refusals(GuardRule rule, Map<String, Long> tokens, Map<String, ItemState> locked) {
        List<Refused.Item> refused = new ArrayList<>();
        tokens.forEach((key, token) -> {
            if (GuardDecision.write(rule, locked.get(key), token) instanceof Stale stale) {
                refused.add(new Refused.Item(key, stale));
            }
        });
        return refused.isEmpty() ? null : new Refused(refused);
    }

    /** The result of an admitted transaction: each key's previous token, in lock order. */
    static ExecutedAll executed(Map<String, ItemState> locked, int rows) {
        Map<String, Long> previous = new LinkedHashMap<>();
        locked.forEach((key, state) -> previous.put(key, state.token()));
        return new ExecutedAll(previous, rows);
    }

    /**
     * Thrown inside the transaction when a guard refuses, so that the transaction rolls back
     * (guard rows it created included) and the refusal comes out as a result, not an exception.
     */
    static final class RefusedRollback extends RuntimeException {
        final transient Refused refused;

        RefusedRollback(Refused refused) {
            super("refused by a guard", null, false, false);
            this.refused = refused;
        }
    }
}
