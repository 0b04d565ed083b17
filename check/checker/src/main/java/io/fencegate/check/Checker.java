package io.fencegate.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * Judges a history: each key's operations by its workload's checker ({@link Workload#check}), plus
 * the properties several workloads share. Unknown outcomes may or may not have happened and are
 * allowed either way: only what was acknowledged (OK) is held to the properties.
 */
public final class Checker {

    private Checker() {}

    public static Verdict check(Workload workload, List<Op> ops, List<Fault> faults) {
        Findings found = new Findings();
        Map<String, List<Op>> byKey = ops.stream().collect(Collectors.groupingBy(Op::key, TreeMap::new, Collectors.toList()));
        for (Map.Entry<String, List<Op>> e : byKey.entrySet()) {
            workload.check(e.getKey(), e.getValue(), faults, found);
        }
        List<Violation> violations = new ArrayList<>(found.violations);
        violations.sort(Comparator.comparingLong(Violation::atUs));
        return new Verdict(workload, violations, found.excused, found.undecided);
    }

    /**
     * Per item: each acknowledged write replaced a lower token (the store's own account), and no
     * write is acknowledged with a token at or below one acknowledged before it was sent.
     */
    static void staleAcks(String key, List<Op> ops, Findings out) {
        List<Op> acked = ops.stream().filter(o -> o.is(Op.WRITE) && o.outcome() == Outcome.OK).toList();
        for (Op op : acked) {
            if (op.prior() >= op.token()) {
                out.violation(new Violation(Violation.TOKEN_ORDER, key, op.completeUs(),
                        "write with token " + op.token() + " acknowledged over token " + op.prior()));
            }
        }
        notAboveEarlierTokens(acked, (op, highest) -> out.violation(new Violation(Violation.STALE_ACK, key, op.completeUs(),
                "write with token " + op.token() + " (client " + op.client() + ") acknowledged after token "
                        + highest.token() + " (client " + highest.client() + ") had been acknowledged before it was sent")));
    }

    /**
     * Per item: a fenced read with token T that was answered raised the item's fence to T, so no write
     * with a token below T sent after that answer may be acknowledged. A refused read raised no fence,
     * and an unknown one may not have: only answered ones count.
     */
    static void fences(String key, List<Op> ops, Findings out) {
        List<Op> fenced = ops.stream().filter(o -> o.is(Op.READ) && o.token() > 0 && o.outcome() == Outcome.OK)
                .sorted(Comparator.comparingLong(Op::completeUs)).toList();
        List<Op> writes = ops.stream().filter(o -> o.is(Op.WRITE) && o.outcome() == Outcome.OK)
                .sorted(Comparator.comparingLong(Op::invokeUs)).toList();
        int done = 0;
        Op fence = null;
        for (Op w : writes) {
            while (done < fenced.size() && fenced.get(done).completeUs() < w.invokeUs()) {
                Op r = fenced.get(done++);
                fence = fence == null || r.token() > fence.token() ? r : fence;
            }
            if (fence != null && w.token() < fence.token()) {
                out.violation(new Violation(Violation.FENCE_BROKEN, key, w.completeUs(), "write with token " + w.token()
                        + " (client " + w.client() + ") acknowledged after a fenced read with token " + fence.token()
                        + " (client " + fence.client() + ") had raised the fence before it was sent"));
            }
        }
    }

    /**
     * Calls {@code found(op, highest)} for each op, in invoke order, whose token is not above the
     * highest token among the ops that completed before it was invoked: the one sweep behind both
     * "no stale acknowledgement" and "tokens grow in grant order".
     */
    static void notAboveEarlierTokens(List<Op> ops, BiConsumer<Op, Op> found) {
        List<Op> byComplete = new ArrayList<>(ops);
        byComplete.sort(Comparator.comparingLong(Op::completeUs));
        List<Op> byInvoke = new ArrayList<>(ops);
        byInvoke.sort(Comparator.comparingLong(Op::invokeUs));
        int done = 0;
        Op highest = null;
        for (Op op : byInvoke) {
            while (done < byComplete.size() && byComplete.get(done).completeUs() < op.invokeUs()) {
                Op c = byComplete.get(done++);
                if (highest == null || c.token() > highest.token()) {
                    highest = c;
                }
            }
            if (highest != null && op.token() <= highest.token()) {
                found.accept(op, highest);
            }
        }
    }

    /**
     * An item whose acknowledged writes no final read saw: whether any of them was lost cannot be
     * told, so the run proves little about it (not VALID).
     */
    static void noFinalRead(String key, long acked, Findings out) {
        if (acked > 0) {
            out.undecided("no final read of " + key + " succeeded: its " + acked
                    + " acknowledged writes were never looked for at the end");
        }
    }

    /** The last successful final read of an item, or null. */
    static Op finalRead(List<Op> ops) {
        Op last = null;
        for (Op op : ops) {
            if (op.is(Op.FINAL) && op.outcome() == Outcome.OK) {
                last = op;
            }
        }
        return last;
    }
}
