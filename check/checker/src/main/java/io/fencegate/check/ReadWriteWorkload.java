package io.fencegate.check;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.LeaseMode;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Read-write leases: on each of a few locks ({store}/{key}, guarding the item {key}), a client takes a
 * read lease ({@value #READ_SHARE} of the steps) and makes a fenced read of the item with its token,
 * thinks or pauses, and releases; or takes a write lease and increments the item as the counter does
 * (fenced read, think or pause, guarded write, release).
 *
 * <p>Judged per lock: the grants as a read-write lock with fences ({@link MutualExclusion}, which lets
 * read leases overlap each other and a write lease nothing), token order whatever the mode, no write
 * acknowledged with a read lease's token ({@link #readTokenWrites}), and the item as the counter's
 * register with fences: the fences readers raised hold writers below them off.
 *
 * <p>The controls break the clients: {@code plain-reads} reads without the token (readers and writers,
 * and with {@value #CONTROL_READ_SHARE} of the steps readers), and its writers pause on a schedule
 * ({@link Takeover}): one holds the value it read past its ttl until the lock's next writer has read
 * the same value, then both write it, and an increment is lost; {@code bypass-guard} takes only a read
 * lease and writes with its token straight into the store's table, past the guard.
 */
final class ReadWriteWorkload implements Workload {
    /** Share of steps that take a read lease. */
    static final double READ_SHARE = 0.7;
    /**
     * The plain-reads control's share: its anomaly needs a writer's plain read to land between a paused
     * writer's read and write, and at 0.7 a 20 s control run on 2 locks saw none (116 writers).
     */
    static final double CONTROL_READ_SHARE = 0.3;

    private final CounterWorkload counter = new CounterWorkload();

    @Override
    public String label() {
        return "rw";
    }

    @Override
    public String counted() {
        return Op.ACQUIRE;
    }

    @Override
    public String countedInWords() {
        return "ops are leases asked for (read and write acquire calls); fail counts acquires answered 423 (still held"
                + " after waiting two ttls) or never sent (connection refused)";
    }

    @Override
    public boolean writesItems() {
        return true;
    }

    @Override
    public void step(ClientLoop client, Gateways.Gateway gw) throws InterruptedException {
        String key = client.options().keyPrefix() + "/rw-" + client.nextInt(client.options().keys());
        boolean plain = client.options().control() == Control.PLAIN_READS;
        boolean reader = client.nextDouble() < (plain ? CONTROL_READ_SHARE : READ_SHARE);
        boolean readLeaseWriter = !reader && client.options().control() == Control.BYPASS_GUARD;
        Lease lease = client.acquire(gw, key, reader || readLeaseWriter ? LeaseMode.READ : LeaseMode.WRITE);
        if (lease == null) {
            return;
        }
        if (reader) {
            read(client, gw, key, lease);
        } else if (plain) {
            counter.underLeaseTakenOver(client, gw, key, lease);
        } else {
            counter.underLease(client, gw, key, lease); // the bypass control's writer writes with its read token
        }
    }

    /**
     * A reader: fenced read with the read lease's token (it raises the item's fence), hold, release.
     * The plain-reads control's reader reads without it, so no reader fences a paused writer out.
     */
    private static void read(ClientLoop client, Gateways.Gateway gw, String key, Lease lease) throws InterruptedException {
        FencegateClient c = gw.client();
        String store = client.options().store();
        boolean plain = client.options().control() == Control.PLAIN_READS;
        long token = plain ? 0 : lease.token();
        long t0 = Clock.nowUs();
        try {
            ReadOutcome read = plain ? c.get(store, key) : c.get(store, key, token);
            client.answered(gw);
            String value = read instanceof ReadOutcome.Value v ? new String(v.bytes(), StandardCharsets.UTF_8) : null;
            long readOf = read instanceof ReadOutcome.Value v ? v.token() : 0;
            client.record(gw, Op.READ, key, token, value, readOf, t0, read instanceof Stale ? Outcome.FAIL : Outcome.OK,
                    read instanceof Stale s ? "stale: item fenced at " + s.fence() : "");
            if (!(read instanceof Stale)) {
                client.pauseOrThink();
            }
        } catch (RuntimeException e) {
            client.failed(gw, c, Op.READ, key, token, null, t0, e);
        }
        client.release(gw, key, lease);
    }

    @Override
    public void check(String key, List<Op> ops, List<Fault> faults, Findings out) {
        MutualExclusion.check(key, ops, faults, out);
        readTokenWrites(key, ops, out);
        counter.check(key, ops, faults, out);
    }

    /**
     * A read lease's token only reads: the gateway refuses it on every write (403). A write
     * acknowledged with the token of a read lease granted on this lock was let through past that rule.
     */
    static void readTokenWrites(String key, List<Op> ops, Findings out) {
        Map<Long, Op> readGrants = new HashMap<>();
        for (Op op : ops) {
            if (op.is(Op.ACQUIRE) && op.outcome() == Outcome.OK && op.readMode()) {
                readGrants.putIfAbsent(op.token(), op);
            }
        }
        for (Op w : ops) {
            Op grant = w.is(Op.WRITE) && w.outcome() == Outcome.OK ? readGrants.get(w.token()) : null;
            if (grant != null) {
                out.violation(new Violation(Violation.READ_TOKEN_WRITE, key, w.completeUs(), "write with token " + w.token()
                        + " (client " + w.client() + ") acknowledged, but token " + w.token() + " is a read lease's (granted to client "
                        + grant.client() + ")"));
            }
        }
    }
}
