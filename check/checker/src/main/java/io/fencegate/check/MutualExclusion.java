package io.fencegate.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The grant history of one lock judged as a mutex with fences: no lease is granted while another
 * is surely held, and each grant's token exceeds every token granted before it was asked for.
 *
 * <p>What a client can know of a lease: it was granted at some moment between its request and its
 * answer, and its ttl started then, so it surely lasts until the earliest moment it can have ended:
 * its ttl counted from the earliest moment it can have been granted (pushed later by a successful
 * renew: the renew's request plus the ttl), or its release's request, whichever comes first. A
 * grant cannot come before every lease with a lower token has ended (the issuer grants in token
 * order, one at a time), so a waiter's ttl started no earlier than the moment its predecessors
 * could first have ended: that is how a grant answered long after its request is judged like any
 * other. If that reasoning is wrong for a history, its premise was a double grant or a token out of
 * order, so a violation it finds is still a violation of the history.
 *
 * <p>Read leases ({@link Op#readMode}) share a lock with each other, never with a write lease: a pair
 * of read leases is never compared, and a read lease waits only for the write leases below it.
 *
 * <p>A grant with a higher token answered before a lower-token lease surely ended was granted while
 * that lease was held. Such a pair is excused only if a lease-ending fault may have ended the earlier
 * lease first ({@link Fault#mayEndLease}): one on its gateway or everywhere, whose damage was done
 * after that lease was asked for and began before the later grant's answer. An unknown grant may or
 * may not have happened: it is never held to the property and excuses nothing.
 */
final class MutualExclusion {

    /**
     * One acknowledged grant: asked at {@code op.invokeUs()}, answered at {@code op.completeUs()},
     * its ttl started no earlier than {@code startUs}, and it surely lasted until {@code endUs} unless
     * a fault ended it; {@code earliestEndUs} counts such faults too.
     */
    record Lease(Op op, long startUs, long endUs, long earliestEndUs, String why) {}

    private MutualExclusion() {}

    static void check(String lock, List<Op> ops, List<Fault> faults, Findings out) {
        List<Op> grants = grants(ops);
        overlaps(lock, leases(grants, ops, faults), faults, out);
        Checker.notAboveEarlierTokens(grants, (g, highest) -> out.violation(new Violation(Violation.TOKEN_ORDER, lock, g.completeUs(),
                "token " + g.token() + " granted after token " + highest.token() + " had been granted")));
        for (int i = 1; i < grants.size(); i++) {
            Op a = grants.get(i - 1);
            Op b = grants.get(i);
            if (a.token() == b.token() && b.invokeUs() <= a.completeUs()) { // one after the other is reported above
                out.violation(new Violation(Violation.TOKEN_ORDER, lock, b.completeUs(), "token " + b.token()
                        + " granted twice at once: to client " + a.client() + " and to client " + b.client()));
            }
        }
    }

    /** The acknowledged grants among {@code ops}, in token order (then answer order). */
    static List<Op> grants(List<Op> ops) {
        return ops.stream().filter(o -> o.is(Op.ACQUIRE) && o.outcome() == Outcome.OK)
                .sorted(Comparator.comparingLong(Op::token).thenComparingLong(Op::completeUs)).toList();
    }

    /**
     * What a client can know of each grant in {@code grants} (in token order): when its ttl started at
     * the earliest and when it surely ended. A write lease is granted only once every lease with a
     * lower token may have ended; a read lease once every write lease with a lower token may have
     * (read leases share the lock, so a read may start while lower-token reads are held).
     */
    static List<Lease> leases(List<Op> grants, List<Op> ops, List<Fault> faults) {
        Map<String, Long> releasedAt = new HashMap<>();
        Map<String, Long> renewedAt = new HashMap<>();
        for (Op op : ops) {
            if (op.is(Op.RELEASE)) { // any outcome: a release that was sent may have ended the lease from then on
                releasedAt.merge(id(op), op.invokeUs(), Math::min);
            } else if (op.is(Op.RENEW) && op.outcome() == Outcome.OK) {
                renewedAt.merge(id(op), op.invokeUs(), Math::max);
            }
        }
        List<Lease> leases = new ArrayList<>(grants.size());
        Floor all = new Floor(Long.MIN_VALUE, null); // every lease with a lower token may have ended by then, not before
        Floor writes = all; // every write lease with a lower token may have ended by then
        for (int i = 0; i < grants.size(); ) {
            int j = i;
            Floor nextAll = all;
            Floor nextWrites = writes;
            for (; j < grants.size() && grants.get(j).token() == grants.get(i).token(); j++) {
                Op g = grants.get(j);
                Lease l = lease(g, g.readMode() ? writes : all, releasedAt, renewedAt, faults);
                leases.add(l);
                nextAll = nextAll.raisedBy(l);
                if (!g.readMode()) {
                    nextWrites = nextWrites.raisedBy(l);
                }
            }
            all = nextAll;
            writes = nextWrites;
            i = j;
        }
        return leases;
    }

    /** The moment the leases below a token may first all have ended ({@code atUs}), and the one that ends last ({@code by}). */
    private record Floor(long atUs, Op by) {
        Floor raisedBy(Lease l) {
            return l.earliestEndUs() > atUs ? new Floor(l.earliestEndUs(), l.op()) : this;
        }
    }

    private static Lease lease(Op g, Floor floor, Map<String, Long> releasedAt, Map<String, Long> renewedAt,
            List<Fault> faults) {
        long ttlUs = Long.parseLong(g.value().trim()) * 1000;
        long start = Math.min(Math.max(g.invokeUs(), floor.atUs()), g.completeUs());
        String why = start > g.invokeUs() ? ", its ttl started no earlier than " + (start - g.invokeUs()) / 1000
                + " ms after its request, when token " + floor.by().token() + " could first have ended" : "";
        long expiry = start + ttlUs;
        Long renewed = renewedAt.get(id(g));
        if (renewed != null && renewed + ttlUs > expiry) {
            expiry = renewed + ttlUs;
            why += ", renewed";
        }
        long end = Math.min(expiry, releasedAt.getOrDefault(id(g), Long.MAX_VALUE));
        long earliest = end;
        for (Fault f : faults) {
            if (f.mayEndLease(g.gateway(), g.invokeUs(), end)) {
                earliest = Math.min(earliest, Math.max(f.startUs(), g.invokeUs()));
            }
        }
        return new Lease(g, start, end, earliest, why);
    }

    /**
     * Each grant against every lease with a lower token that may still be held when it is answered.
     * Leases are dropped once they ended before every answer still to come, so a long history is
     * swept, not compared pairwise.
     */
    private static void overlaps(String lock, List<Lease> leases, List<Fault> faults, Findings out) {
        long[] laterAnswers = new long[leases.size() + 1];
        laterAnswers[leases.size()] = Long.MAX_VALUE;
        for (int i = leases.size() - 1; i >= 0; i--) {
            laterAnswers[i] = Math.min(laterAnswers[i + 1], leases.get(i).op().completeUs());
        }
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < leases.size(); i++) {
            Lease b = leases.get(i);
            long answered = b.op().completeUs();
            long soonest = laterAnswers[i];
            held.removeIf(a -> a.endUs() <= soonest);
            for (Lease a : held) {
                if (a.op().token() >= b.op().token() || answered >= a.endUs() || answered < a.op().invokeUs()) {
                    continue; // answered before the lower token was even asked for: a token out of order, reported as such
                }
                if (a.op().readMode() && b.op().readMode()) {
                    continue; // read leases share the lock
                }
                if (excused(a, answered, faults)) {
                    out.excused();
                } else {
                    out.violation(new Violation(Violation.TWO_LIVE_LEASES, lock, answered,
                            mode(b.op()) + "token " + b.op().token() + " (client " + b.op().client() + ", " + b.op().gateway()
                                    + ") granted while " + mode(a.op()) + "token " + a.op().token() + " (client " + a.op().client() + ", "
                                    + a.op().gateway() + ") was surely held for " + (a.endUs() - answered) / 1000 + " ms more"
                                    + a.why()));
                }
            }
            held.add(b);
        }
    }

    /** The earlier lease {@code a} may have ended before {@code beforeUs} by a fault that ends leases. */
    private static boolean excused(Lease a, long beforeUs, List<Fault> faults) {
        for (Fault f : faults) {
            if (f.mayEndLease(a.op().gateway(), a.op().invokeUs(), beforeUs)) {
                return true;
            }
        }
        return false;
    }

    /** "read lease " for a read lease's grant, nothing for a write lease (the only kind a mutex has). */
    private static String mode(Op grant) {
        return grant.readMode() ? "read lease " : grant.slot() != null ? "slot " + grant.slot() + " " : "";
    }

    /** A lease's release and renews name it by its client and token. */
    private static String id(Op op) {
        return op.client() + "/" + op.token();
    }
}
