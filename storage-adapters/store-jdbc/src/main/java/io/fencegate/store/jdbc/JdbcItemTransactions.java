package io.fencegate.store.jdbc;

import io.fencegate.store.ClaimResult;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.Refused;
import io.fencegate.store.TransactionResult;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.ItemState;
import io.fencegate.store.backend.ItemTransactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/**
 * Transactions across items and fenced multi-reads, inside one JDBC transaction: every item's row
 * of {@code fencegate_item} is locked (created if missing) in {@link ItemTransactions#KEY_ORDER},
 * the decision is taken over all of them, and then either every change is made or the transaction
 * is rolled back, the rows it created included.
 */
final class JdbcItemTransactions {
    private final GuardRow items;
    private final GuardRule rule;
    private final int timeoutSeconds;

    JdbcItemTransactions(GuardRow items, GuardRule rule, int timeoutSeconds) {
        this.items = items;
        this.rule = rule;
        this.timeoutSeconds = timeoutSeconds;
    }

    TransactionResult transact(Connection c, List<GuardedOp> ops) throws SQLException {
        int[] order = ItemTransactions.lockOrderOfOps(ops);
        ItemState[] states = new ItemState[ops.size()];
        for (int i : order) {
            states[i] = items.lockOrCreate(c, ops.get(i).key(), false, timeoutSeconds);
        }
        TransactionResult decision = ItemTransactions.decide(rule, ops, Arrays.asList(states));
        if (decision instanceof Refused) {
            c.rollback();
            return decision;
        }
        for (int i : order) {
            GuardedOp op = ops.get(i);
            items.advance(c, op.key(), op.value(), op.token(), timeoutSeconds);
        }
        return decision;
    }

    ClaimResult fencedReadAll(Connection c, List<ItemClaim> claims) throws SQLException {
        int[] order = ItemTransactions.lockOrderOfClaims(claims);
        ItemState[] states = new ItemState[claims.size()];
        for (int i : order) {
            states[i] = items.lockOrCreate(c, claims.get(i).key(), true, timeoutSeconds);
        }
        ClaimResult decision = ItemTransactions.decideClaims(claims, Arrays.asList(states));
        if (decision instanceof Refused) {
            c.rollback();
            return decision;
        }
        for (int i : order) {
            ItemClaim claim = claims.get(i);
            if (GuardDecision.raisesFence(states[i], claim.token())) {
                // A missing item keeps the row lockOrCreate made: a fence-only row.
                items.raiseFence(c, claim.key(), claim.token(), timeoutSeconds);
            }
        }
        return decision;
    }
}
