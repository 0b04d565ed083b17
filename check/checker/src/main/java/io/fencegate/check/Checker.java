package io.fencegate.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * Judges a history. Unknown outcomes may or may not have happened and are allowed either way:
 * only what was acknowledged (OK) is held to the properties.
 */
public final class Checker {

    private Checker() {}

    public static Verdict check(Workload workload, List<Op> ops, List<Fault> faults) {
        List<Violation> violations = new ArrayList<>();
        int[] excused = {0};
        Map<String, List<Op>> byKey = ops.stream().collect(Collectors.groupingBy(Op::key, TreeMap::new, Collectors.toList()));
        byKey.forEach((key, keyOps) -> {
            switch (workload) {
                case COUNTER -> {
                    counter(key, keyOps, violations);
                    staleAcks(key, keyOps, violations);
                }
                case LOCK_SET -> {
                    lockSet(key, keyOps, violations);
                    staleAcks(key, keyOps, violations);
                }
                case MUTEX -> excused[0] += mutex(key, keyOps, faults, violations);
            }
        });
        violations.sort(Comparator.comparingLong(Violation::atUs));
        return new Verdict(workload, violations, excused[0]);
    }

    /** The final value equals the acknowledged increments, and no two acknowledgements wrote one value. */
    static void counter(String key, List<Op> ops, List<Violation> out) {
        Map<String, Op> byValue = new HashMap<>();
        long acked = 0;
        long unknown = 0;
        for (Op op : ops) {
            if (!op.is(Op.WRITE)) {
                continue;
            }
            if (op.outcome() == Outcome.OK) {
                acked++;
                Op earlier = byValue.putIfAbsent(op.value(), op);
                if (earlier != null) {
                    out.add(new Violation(Violation.DUPLICATE_VALUE, key, op.completeUs(),
                            "value " + op.value() + " acknowledged twice: token " + earlier.token()
                                    + " (client " + earlier.client() + ") and token " + op.token() + " (client " + op.client() + ")"));
                }
            } else if (op.outcome() == Outcome.UNKNOWN) {
                unknown++;
            }
        }
        Op last = finalRead(ops);
        if (last == null) {
            return;
        }
        long value = last.value() == null ? 0 : Long.parseLong(last.value().trim());
        if (value < acked) {
            out.add(new Violation(Violation.LOST_UPDATE, key, last.completeUs(),
                    "final value " + value + " but " + acked + " increments were acknowledged: "
                            + (acked - value) + " lost"));
        } else if (value > acked + unknown) {
            out.add(new Violation(Violation.LOST_UPDATE, key, last.completeUs(),
                    "final value " + value + " exceeds the " + acked + " acknowledged and " + unknown
                            + " unknown increments"));
        }
    }

    /** Every acknowledged add is in the final set. */
    static void lockSet(String key, List<Op> ops, List<Violation> out) {
        Op last = finalRead(ops);
        if (last == null) {
            return;
        }
        Set<String> present = last.value() == null ? Set.of() : new HashSet<>(Arrays.asList(last.value().split(",")));
        for (Op op : ops) {
            if (op.is(Op.WRITE) && op.outcome() == Outcome.OK && !present.contains(op.value())) {
                out.add(new Violation(Violation.LOST_ADD, key, op.completeUs(),
                        "element " + op.value() + " acknowledged (token " + op.token() + ") but missing at the end"));
            }
        }
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
    private static void notAboveEarlierTokens(List<Op> ops, BiConsumer<Op, Op> found) {
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
     * The grant history against a mutex with fences: no two leases on one lock are live at once, and
     * each grant's token exceeds every token granted before it was asked for. A lease is surely live
     * from its grant's answer until its ttl passes (counted from the request: the issuer starts the
     * ttl later, never earlier) or its release is sent.
     *
     * @return the overlaps excused by a fault that ends leases early
     */
    static int mutex(String lock, List<Op> ops, List<Fault> faults, List<Violation> out) {
        record Held(Op grant, long fromUs, long toUs) {}
        Map<String, Long> releasedAt = new HashMap<>();
        for (Op op : ops) {
            if (op.is(Op.RELEASE)) {
                releasedAt.merge(op.client() + "/" + op.token(), op.invokeUs(), Math::min);
            }
        }
        List<Op> grants = ops.stream().filter(o -> o.is(Op.ACQUIRE) && o.outcome() == Outcome.OK).toList();
        List<Held> held = new ArrayList<>();
        for (Op g : grants) {
            long ttlUs = Long.parseLong(g.value()) * 1000;
            long to = Math.min(g.invokeUs() + ttlUs, releasedAt.getOrDefault(g.client() + "/" + g.token(), Long.MAX_VALUE));
            if (to > g.completeUs()) {
                held.add(new Held(g, g.completeUs(), to));
            }
        }
        held.sort(Comparator.comparingLong(Held::fromUs));
        int excused = 0;
        Held longest = null;
        for (Held h : held) {
            if (longest != null && h.fromUs() < longest.toUs()) {
                Held a = longest;
                boolean ended = faults.stream().anyMatch(f -> f.endsLeases() && f.overlaps(a.fromUs(), h.fromUs()));
                if (ended) {
                    excused++;
                } else {
                    out.add(new Violation(Violation.TWO_LIVE_LEASES, lock, h.fromUs(),
                            "token " + h.grant().token() + " (client " + h.grant().client() + ") granted while token "
                                    + a.grant().token() + " (client " + a.grant().client() + ") was live for "
                                    + (a.toUs() - h.fromUs()) / 1000 + " ms more"));
                }
            }
            if (longest == null || h.toUs() > longest.toUs()) {
                longest = h;
            }
        }
        notAboveEarlierTokens(grants, (g, highest) -> out.add(new Violation(Violation.TOKEN_ORDER, lock, g.completeUs(),
                "token " + g.token() + " granted after token " + highest.token() + " had been granted")));
        return excused;
    }

    private static Op finalRead(List<Op> ops) {
        Op last = null;
        for (Op op : ops) {
            if (op.is(Op.FINAL) && op.outcome() == Outcome.OK) {
                last = op;
            }
        }
        return last;
    }

    /** The elements of a lock-set value, in order. */
    public static Set<String> elements(String value) {
        return value == null || value.isEmpty() ? new LinkedHashSet<>() : new LinkedHashSet<>(Arrays.asList(value.split(",")));
    }
}
