package io.fencegate.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A fenced semaphore's count: never more than its N permits surely live at once, and no permit in
 * a slot beyond N.
 *
 * <p>A permit is surely live from its grant's answer (it was granted by then) until the earliest
 * moment it can have ended, as {@link MutualExclusion} reckons it for its slot (its ttl from the
 * earliest moment it can have been granted, pushed later by a renew, cut short by its release's
 * request or by a fault that may end leases). More than N such intervals over one moment means more
 * than N holders at once, whichever moments inside their calls the grants took effect. An unknown
 * grant may or may not have happened: it is never counted.
 */
final class SemaphoreCount {

    private SemaphoreCount() {}

    static void check(String key, List<Op> ops, List<Fault> faults, Findings out) {
        int permits = 0;
        Map<Integer, List<Op>> bySlot = new TreeMap<>();
        for (Op op : ops) {
            if (op.permits() != null) {
                permits = Math.max(permits, op.permits());
            }
            if (op.slot() != null) {
                bySlot.computeIfAbsent(op.slot(), s -> new ArrayList<>()).add(op);
            }
        }
        List<MutualExclusion.Lease> live = new ArrayList<>();
        for (List<Op> slotOps : bySlot.values()) {
            for (MutualExclusion.Lease l : MutualExclusion.leases(MutualExclusion.grants(slotOps), slotOps, faults)) {
                if (l.op().slot() < 0 || l.op().slot() >= permits) {
                    out.violation(new Violation(Violation.PERMITS_EXCEEDED, key, l.op().completeUs(), "token " + l.op().token()
                            + " (client " + l.op().client() + ") granted slot " + l.op().slot() + " of a semaphore of " + permits));
                }
                if (l.op().completeUs() < l.earliestEndUs()) {
                    live.add(l);
                }
            }
        }
        overCount(key, permits, live, out);
    }

    /** Sweeps the surely-live intervals in time: each grant whose answer finds N others surely live is a violation. */
    private static void overCount(String key, int permits, List<MutualExclusion.Lease> leases, Findings out) {
        List<MutualExclusion.Lease> byAnswer = new ArrayList<>(leases);
        byAnswer.sort(Comparator.comparingLong(l -> l.op().completeUs()));
        List<MutualExclusion.Lease> held = new ArrayList<>();
        for (MutualExclusion.Lease l : byAnswer) {
            long at = l.op().completeUs();
            held.removeIf(h -> h.earliestEndUs() <= at);
            if (held.size() >= permits) {
                StringBuilder others = new StringBuilder();
                for (MutualExclusion.Lease h : held) {
                    others.append(others.isEmpty() ? "" : ", ").append("token ").append(h.op().token()).append(" in slot ")
                            .append(h.op().slot()).append(" (client ").append(h.op().client()).append(')');
                }
                out.violation(new Violation(Violation.PERMITS_EXCEEDED, key, at, "token " + l.op().token() + " (client "
                        + l.op().client() + ", slot " + l.op().slot() + ") granted while " + held.size() + " of the "
                        + permits + " permits were surely held: " + others));
            }
            held.add(l);
        }
    }
}
