package io.fencegate.check;

import io.fencegate.client.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A fenced semaphore of {@code --permits} N ({store}/{key}, {key} = {prefix}/semaphore): a client takes
 * one permit, and in the slot it took increments that slot's counter, the item {key}/{slot} (guarded
 * by the slot's lock {store}/{key}/{slot}, which the permit's token holds), as the counter does:
 * fenced read, think or pause, guarded write, release.
 *
 * <p>Judged on the semaphore's key ({@link SemaphoreCount}): never more than N permits surely live at
 * once, no slot beyond N, and per slot the mutex's rules ({@link MutualExclusion}: no two surely-live
 * holders of one slot, token order); on each slot's item, the counter's register with fences.
 *
 * <p>The controls break the holders' read-modify-write as the counter's do: plain reads, or writes past
 * the guard.
 */
final class SemaphoreWorkload implements Workload {
    static final int DEFAULT_PERMITS = 3;
    /** The checker's own bound (the issuers take up to 1000): each slot is an item read at the end. */
    static final int MAX_PERMITS = 64;

    private final CounterWorkload counter = new CounterWorkload();

    @Override
    public String label() {
        return "semaphore";
    }

    @Override
    public String counted() {
        return Op.ACQUIRE;
    }

    @Override
    public String countedInWords() {
        return "ops are permits asked for (acquire calls); fail counts acquires answered 423 (no permit free after waiting"
                + " two ttls) or never sent (connection refused)";
    }

    @Override
    public boolean writesItems() {
        return true;
    }

    /** The semaphore's key: its lock is {store}/{key}, its slots' locks {store}/{key}/{slot}. */
    static String semaphore(RunOptions options) {
        return options.keyPrefix() + "/semaphore";
    }

    @Override
    public void step(ClientLoop client, Gateways.Gateway gw) throws InterruptedException {
        String key = semaphore(client.options());
        Lease permit = client.acquirePermit(gw, key, client.options().keys());
        if (permit == null) {
            return;
        }
        // the item the slot's lock guards: the permit's token holds {store}/{key}/{slot}
        counter.underLeaseOf(client, gw, key + "/" + permit.slot(), key, permit);
    }

    @Override
    public void check(String key, List<Op> ops, List<Fault> faults, Findings out) {
        if (ops.stream().anyMatch(o -> o.permits() != null || o.slot() != null)) {
            SemaphoreCount.check(key, ops, faults, out);
            Map<Integer, List<Op>> bySlot = new TreeMap<>();
            for (Op op : ops) {
                if (op.slot() != null) {
                    bySlot.computeIfAbsent(op.slot(), s -> new ArrayList<>()).add(op);
                }
            }
            bySlot.forEach((slot, slotOps) -> MutualExclusion.check(key + "/" + slot, slotOps, faults, out));
        } else {
            counter.check(key, ops, faults, out);
        }
    }
}
