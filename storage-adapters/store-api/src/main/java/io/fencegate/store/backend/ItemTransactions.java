package io.fencegate.store.backend;

import io.fencegate.store.Applied;
import io.fencegate.store.ClaimResult;
import io.fencegate.store.Claimed;
import io.fencegate.store.Committed;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Refused;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.TransactionResult;
import io.fencegate.store.WriteResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Transactions across items, the part every store shares: the input checks, the one canonical
 * order in which a transaction locks its items, and the all-or-nothing decision over the states it
 * locked ({@link GuardDecision} per item). A store only locks, asks, and stores the outcome.
 */
public final class ItemTransactions {

    /**
     * Unsigned byte order of the UTF-8 keys, computed as Unicode code point order (the same order,
     * without encoding: the coalesced writes sort by it on their hot path). Every transaction locks
     * its items in this order, so two transactions that share items queue on the first shared one
     * instead of each holding what the other waits for. Not {@link String#compareTo}, whose UTF-16
     * order differs above U+FFFF: this is the order a database's binary or "C" collation uses.
     */
    public static final Comparator<String> KEY_ORDER = ItemTransactions::compareCodePoints;

    private static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    private ItemTransactions() {}

    /** The checks of a transaction; see {@code GuardedStore.transact}. */
    public static void checkOps(StoreLimits limits, List<GuardedOp> ops) {
        checkCount(ops == null ? 0 : ops.size());
        Set<String> keys = new HashSet<>();
        long bytes = 0;
        for (GuardedOp op : ops) {
            if (op == null) {
                throw new IllegalArgumentException("an operation is null");
            }
            limits.checkGuarded(op.key(), op.token());
            if (!keys.add(op.key())) {
                throw new IllegalArgumentException("key '" + op.key() + "' appears twice in one transaction");
            }
            if (!op.isDelete()) {
                limits.checkValue(op.value());
                bytes += op.value().length;
            }
        }
        if (bytes > limits.maxValueBytes()) {
            throw new IllegalArgumentException("the transaction's values, " + bytes + " bytes together, are over the limit of "
                    + limits.maxValueBytes());
        }
    }

    /** The checks of a fenced multi-read; see {@code GuardedStore.fencedReadAll}. */
    public static void checkClaims(StoreLimits limits, List<ItemClaim> claims) {
        checkCount(claims == null ? 0 : claims.size());
        Set<String> keys = new HashSet<>();
        for (ItemClaim claim : claims) {
            if (claim == null) {
                throw new IllegalArgumentException("a claim is null");
            }
            limits.checkGuarded(claim.key(), claim.token());
            if (!keys.add(claim.key())) {
                throw new IllegalArgumentException("key '" + claim.key() + "' appears twice in one multi-read");
            }
        }
    }

    private static void checkCount(int n) {
        if (n == 0) {
            throw new IllegalArgumentException("a transaction needs at least one item");
        }
        if (n > GuardedOp.MAX_ITEMS) {
            throw new IllegalArgumentException(n + " items are over the limit of " + GuardedOp.MAX_ITEMS + " in one transaction");
        }
    }

    /** The indexes of {@code keys} in {@link #KEY_ORDER}: the order to lock them in. */
    public static int[] lockOrder(List<String> keys) {
        return IntStream.range(0, keys.size()).boxed()
                .sorted((i, j) -> KEY_ORDER.compare(keys.get(i), keys.get(j)))
                .mapToInt(Integer::intValue).toArray();
    }

    /** {@code ops}' keys, in {@link #lockOrder}. */
    public static int[] lockOrderOfOps(List<GuardedOp> ops) {
        return lockOrder(ops.stream().map(GuardedOp::key).toList());
    }

    /** {@code claims}' keys, in {@link #lockOrder}. */
    public static int[] lockOrderOfClaims(List<ItemClaim> claims) {
        return lockOrder(claims.stream().map(ItemClaim::key).toList());
    }

    /**
     * The decision over the locked items ({@code states.get(i)} is the state of {@code ops.get(i)}):
     * {@link Committed} if every item's guard admits its token, else {@link Refused} naming each
     * one that does not. On Committed the store sets token = fence = t of every item.
     */
    public static TransactionResult decide(GuardRule rule, List<GuardedOp> ops, List<ItemState> states) {
        List<Applied> applied = new ArrayList<>(ops.size());
        List<Refused.Item> refused = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            WriteResult decision = GuardDecision.write(rule, states.get(i), ops.get(i).token());
            if (decision instanceof Applied a) {
                applied.add(a);
            } else {
                refused.add(new Refused.Item(ops.get(i).key(), (Stale) decision));
            }
        }
        return refused.isEmpty() ? new Committed(applied) : new Refused(refused);
    }

    /**
     * The decision of a fenced multi-read over the locked items (with their values):
     * {@link Claimed} if every fence admits its token (then the store raises each fence where
     * {@link GuardDecision#raisesFence} says), else {@link Refused}.
     */
    public static ClaimResult decideClaims(List<ItemClaim> claims, List<ItemState> states) {
        List<ReadResult> read = new ArrayList<>(claims.size());
        List<Refused.Item> refused = new ArrayList<>();
        for (int i = 0; i < claims.size(); i++) {
            ReadResult decision = GuardDecision.fencedRead(states.get(i), claims.get(i).token());
            if (decision instanceof Stale stale) {
                refused.add(new Refused.Item(claims.get(i).key(), stale));
            } else {
                read.add(decision);
            }
        }
        return refused.isEmpty() ? new Claimed(read) : new Refused(refused);
    }
}
