package io.fencegate.check;

import io.fencegate.client.Lease;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The mutex: lease, hold (think or pause), renew, release; judged as the grant history of a mutex with
 * fences. No two leases on one lock are surely live at once, and each grant's token exceeds every
 * token granted before it was asked for.
 */
final class MutexWorkload implements Workload {

    @Override
    public String label() {
        return "mutex";
    }

    @Override
    public String counted() {
        return Op.ACQUIRE;
    }

    @Override
    public String countedInWords() {
        return "ops are grants asked for (acquire calls); fail counts acquires answered 423 (still held after waiting"
                + " two ttls) or never sent (connection refused)";
    }

    @Override
    public boolean writesItems() {
        return false;
    }

    @Override
    public void step(ClientLoop client, Gateways.Gateway gw) throws InterruptedException {
        String lock = client.options().keyPrefix() + "/mutex-" + client.nextInt(client.options().keys());
        Lease lease = client.acquire(gw, lock);
        if (lease != null) {
            client.pauseOrThink();
            client.renew(gw, lock, lease);
            client.release(gw, lock, lease);
        }
    }

    /** A lease as the client can know it: surely live from {@code fromUs} to {@code toUs}. */
    private record Held(Op grant, long fromUs, long toUs) {}

    /**
     * A lease is surely live from its grant's answer until its ttl passes (counted from the request:
     * the issuer starts the ttl later, never earlier) or its release is sent. One sweep in grant
     * order keeps the leases still live; each new grant is compared with every one of them, so an
     * overlap that a fault excuses hides no other.
     */
    @Override
    public int check(String lock, List<Op> ops, List<Fault> faults, List<Violation> out) {
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
        List<Held> live = new ArrayList<>();
        for (Held h : held) {
            live.removeIf(a -> a.toUs() <= h.fromUs());
            for (Held a : live) {
                if (excused(a, h, faults)) {
                    excused++;
                } else {
                    out.add(new Violation(Violation.TWO_LIVE_LEASES, lock, h.fromUs(),
                            "token " + h.grant().token() + " (client " + h.grant().client() + ", " + h.grant().gateway()
                                    + ") granted while token " + a.grant().token() + " (client " + a.grant().client() + ", "
                                    + a.grant().gateway() + ") was live for " + (a.toUs() - h.fromUs()) / 1000 + " ms more"));
                }
            }
            live.add(h);
        }
        Checker.notAboveEarlierTokens(grants, (g, highest) -> out.add(new Violation(Violation.TOKEN_ORDER, lock, g.completeUs(),
                "token " + g.token() + " granted after token " + highest.token() + " had been granted")));
        return excused;
    }

    /**
     * An overlap is innocent only if the earlier lease {@code a} ended early: a lease-ending fault that
     * reaches a's gateway happened after a could have been granted (its request) and before b surely
     * was (b's answer). A fault elsewhere, or outside that span, excuses nothing.
     */
    private static boolean excused(Held a, Held b, List<Fault> faults) {
        for (Fault f : faults) {
            if (f.mayEndLease(a.grant().gateway(), a.grant().invokeUs(), b.fromUs())) {
                return true;
            }
        }
        return false;
    }
}
