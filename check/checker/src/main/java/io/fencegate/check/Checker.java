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
        List<Violation> violations = new ArrayList<>();
        int excused = 0;
        Map<String, List<Op>> byKey = ops.stream().collect(Collectors.groupingBy(Op::key, TreeMap::new, Collectors.toList()));
        for (Map.Entry<String, List<Op>> e : byKey.entrySet()) {
            excused += workload.check(e.getKey(), e.getValue(), faults, violations);
        }
        violations.sort(Comparator.comparingLong(Violation::atUs));
        return new Verdict(workload, violations, excused);
    }

    /**
     * Per item: each acknowledged write replaced a lower token (the store's own account), and no
     * write is acknowledged with a token at or below one acknowledged before it was sent.
     */
    static void staleAcks(String key, List<Op> ops, List<Violation> out) {
        List<Op> acked = ops.stream().filter(o -> o.is(Op.WRITE) && o.outcome() == Outcome.OK).toList();
        for (Op op : acked) {
            if (op.prior() >= op.token()) {
                out.add(new Violation(Violation.TOKEN_ORDER, key, op.completeUs(),
                        "write with token " + op.token() + " acknowledged over token " + op.prior()));
            }
        }
        notAboveEarlierTokens(acked, (op, highest) -> out.add(new Violation(Violation.STALE_ACK, key, op.completeUs(),
                "write with token " + op.token() + " (client " + op.client() + ") acknowledged after token "
                        + highest.token() + " (client " + highest.client() + ") had been acknowledged before it was sent")));
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
