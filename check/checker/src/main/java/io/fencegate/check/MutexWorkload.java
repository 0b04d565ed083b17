package io.fencegate.check;

import io.fencegate.client.Lease;
import java.util.List;

/**
 * The mutex: lease, hold (think or pause), renew, release; judged as the grant history of a mutex with
 * fences ({@link MutualExclusion}): no lease is granted while another is surely held, and each
 * grant's token exceeds every token granted before it was asked for.
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

    @Override
    public void check(String lock, List<Op> ops, List<Fault> faults, Findings out) {
        MutualExclusion.check(lock, ops, faults, out);
    }
}
