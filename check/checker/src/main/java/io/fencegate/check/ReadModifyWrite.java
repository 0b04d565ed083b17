package io.fencegate.check;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;

/**
 * A workload of fenced read-modify-writes on items: lease, fenced read, think or pause past the
 * ttl, guarded write of the next value, release. Each item is also held to token order and to
 * "no stale acknowledgement" ({@link Checker#staleAcks}), to the fences its reads raised
 * ({@link Checker#fences}), and to reads that show every write acknowledged before they were sent
 * ({@link #staleReads}); a subclass says what the next value is, what a value read shows, and what
 * the final values must show.
 */
abstract sealed class ReadModifyWrite implements Workload permits CounterWorkload, LockSetWorkload {

    /** What this client writes over {@code current} (null: missing), and what its operation records. */
    record Next(String value, String recorded) {}

    abstract Next next(ClientLoop client, String current);

    /** The property the acknowledged writes and the final read of one item must have. */
    abstract void checkItem(String key, List<Op> ops, Findings out);

    /** The acknowledged writes a read must show, as they accumulate in the order they were answered. */
    interface Shown {
        void add(Op write);

        /** One acknowledged write the value read does not show (it is older), or null. */
        Op missingFrom(String value);
    }

    abstract Shown shown();

    /** The item a step works on. */
    String itemKey(ClientLoop client) {
        return client.options().keyPrefix() + "/" + label() + "-" + client.nextInt(client.options().keys());
    }

    @Override
    public String counted() {
        return Op.WRITE;
    }

    @Override
    public String countedInWords() {
        return "ops are guarded writes; fail counts writes refused by the store (409 stale: mostly clients that paused"
                + " past their ttl on purpose, as the workload does) or never sent (connection refused)";
    }

    @Override
    public boolean writesItems() {
        return true;
    }

    @Override
    public void check(String key, List<Op> ops, List<Fault> faults, Findings out) {
        int before = out.violations.size();
        checkItem(key, ops, out);
        boolean lost = out.violations.size() > before; // the final read already showed what it misses
        Checker.staleAcks(key, ops, out);
        Checker.fences(key, ops, out);
        staleReads(key, ops, !lost, out);
    }

    /**
     * A register's reads are linearizable: a read (a fenced one, or a final one) shows every write
     * acknowledged before it was sent. Judged on the value (a counter's number, a set's elements) and,
     * where the read recorded it, on the token of the write it read. A final read is judged so too,
     * unless the item's own check already reported what it misses.
     */
    void staleReads(String key, List<Op> ops, boolean finalToo, Findings out) {
        List<Op> reads = ops.stream().filter(o -> (o.is(Op.READ) || finalToo && o.is(Op.FINAL)) && o.outcome() == Outcome.OK)
                .sorted(Comparator.comparingLong(Op::invokeUs)).toList();
        List<Op> writes = ops.stream().filter(o -> o.is(Op.WRITE) && o.outcome() == Outcome.OK)
                .sorted(Comparator.comparingLong(Op::completeUs)).toList();
        Shown shown = shown();
        Op highest = null;
        int done = 0;
        for (Op r : reads) {
            while (done < writes.size() && writes.get(done).completeUs() < r.invokeUs()) {
                Op w = writes.get(done++);
                shown.add(w);
                highest = highest == null || w.token() > highest.token() ? w : highest;
            }
            Op missing = shown.missingFrom(r.value());
            if (missing == null && r.prior() > 0 && highest != null && highest.token() > r.prior()) {
                missing = highest;
            }
            if (missing != null) {
                out.violation(new Violation(Violation.STALE_READ, key, r.completeUs(), (r.is(Op.FINAL) ? "final read" : "read")
                        + " (client " + r.client() + ") returned " + (r.value() == null ? "nothing" : "'" + r.value() + "'")
                        + (r.prior() > 0 ? " written with token " + r.prior() : "") + ", older than the write of '"
                        + missing.value() + "' with token " + missing.token() + " (client " + missing.client()
                        + ") acknowledged before the read was sent"));
            }
        }
    }

    @Override
    public void step(ClientLoop client, Gateways.Gateway gw) throws InterruptedException {
        String key = itemKey(client);
        Lease lease = client.acquire(gw, key);
        if (lease != null) {
            underLease(client, gw, key, lease);
        }
    }

    /**
     * Under {@code lease} (granted on {store}/{key}): fenced read, think or pause past the ttl, guarded
     * write of the next value, release. The plain-reads control reads without the token; the
     * bypass-guard control writes past the guard.
     */
    void underLease(ClientLoop client, Gateways.Gateway gw, String key, Lease lease) throws InterruptedException {
        underLeaseOf(client, gw, key, key, lease);
    }

    /** {@link #underLease} of the item {@code key} under a lease recorded on {@code leaseKey} (a semaphore's permit). */
    void underLeaseOf(ClientLoop client, Gateways.Gateway gw, String key, String leaseKey, Lease lease) throws InterruptedException {
        underLeaseOf(client, gw, key, leaseKey, lease, false);
    }

    /**
     * {@link #underLease}, but between the read and the write the writer takes its part in a takeover
     * ({@link Takeover}) instead of thinking or pausing at random: the rw plain-reads control's schedule.
     */
    void underLeaseTakenOver(ClientLoop client, Gateways.Gateway gw, String key, Lease lease) throws InterruptedException {
        underLeaseOf(client, gw, key, key, lease, true);
    }

    private void underLeaseOf(ClientLoop client, Gateways.Gateway gw, String key, String leaseKey, Lease lease, boolean takeover)
            throws InterruptedException {
        RunOptions options = client.options();
        long token = lease.token();
        FencegateClient c = gw.client();
        boolean plain = options.control() == Control.PLAIN_READS;
        long readToken = plain ? 0 : token; // a plain read carries no token and raises no fence
        long t0 = Clock.nowUs();
        ReadOutcome read;
        try {
            read = plain ? c.get(options.store(), key) : c.get(options.store(), key, token);
            client.answered(gw);
        } catch (RuntimeException e) {
            client.failed(gw, c, Op.READ, key, readToken, null, t0, e);
            client.release(gw, leaseKey, lease);
            return;
        }
        String current = read instanceof ReadOutcome.Value v ? new String(v.bytes(), StandardCharsets.UTF_8) : null;
        long readOf = read instanceof ReadOutcome.Value v ? v.token() : 0;
        client.record(gw, Op.READ, key, readToken, current, readOf, t0, read instanceof Stale ? Outcome.FAIL : Outcome.OK,
                read instanceof Stale s ? "stale: item fenced at " + s.fence() : "");
        if (read instanceof Stale) {
            client.release(gw, leaseKey, lease);
            return;
        }
        Next next = next(client, current);
        if (takeover) {
            // a paused writer waits up to 4 ttls for its successor: about the 2 ttls a waiter waits, twice
            Takeover.Turn turn = client.takeover().between(client, key, token, 4 * options.ttlMs());
            write(client, gw, key, token, next);
            turn.written();
        } else {
            client.pauseOrThink();
            write(client, gw, key, token, next);
        }
        client.release(gw, leaseKey, lease);
    }

    /** The guarded write of {@code next} with {@code token} (or, for the bypass-guard control, the unguarded one). */
    private static void write(ClientLoop client, Gateways.Gateway gw, String key, long token, Next next) {
        byte[] bytes = next.value().getBytes(StandardCharsets.UTF_8);
        FencegateClient c = gw.client();
        long t0 = Clock.nowUs();
        if (client.options().control() == Control.BYPASS_GUARD) {
            try {
                long prior = client.bypass().write(key, token, bytes);
                client.record(gw, Op.WRITE, key, token, next.recorded(), prior, t0, Outcome.OK, "bypassed the guard");
            } catch (SQLException e) { // the database's failure, not the gateway's: no backoff from it
                client.record(gw, Op.WRITE, key, token, next.recorded(), 0, t0, ClientLoop.failure(e), ClientLoop.describe(e));
            }
        } else {
            try {
                WriteOutcome w = c.put(client.options().store(), key, token, bytes);
                client.answered(gw);
                if (w instanceof WriteOutcome.Applied a) {
                    client.record(gw, Op.WRITE, key, token, next.recorded(), a.previousToken(), t0, Outcome.OK, "");
                } else if (w instanceof Stale s) {
                    client.record(gw, Op.WRITE, key, token, next.recorded(), 0, t0, Outcome.FAIL,
                            "409 stale: token " + s.currentToken() + ", fence " + s.fence());
                }
            } catch (RuntimeException e) {
                client.failed(gw, c, Op.WRITE, key, token, next.recorded(), t0, e);
            }
        }
    }
}
