package io.fencegate.check;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;

/**
 * A workload of fenced read-modify-writes on items: lease, fenced read, think or pause past the
 * ttl, guarded write of the next value, release. Each item is also held to token order and to
 * "no stale acknowledgement" ({@link Checker#staleAcks}); a subclass says what the next value is
 * and what the final values must show.
 */
abstract sealed class ReadModifyWrite implements Workload permits CounterWorkload, LockSetWorkload {

    /** What this client writes over {@code current} (null: missing), and what its operation records. */
    record Next(String value, String recorded) {}

    abstract Next next(ClientLoop client, String current);

    /** The property the acknowledged writes and the final read of one item must have. */
    abstract void checkItem(String key, List<Op> ops, List<Violation> out);

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
    public int check(String key, List<Op> ops, List<Fault> faults, List<Violation> out) {
        checkItem(key, ops, out);
        Checker.staleAcks(key, ops, out);
        return 0;
    }

    @Override
    public void step(ClientLoop client, Gateways.Gateway gw) throws InterruptedException {
        RunOptions options = client.options();
        String key = itemKey(client);
        Lease lease = client.acquire(gw, key);
        if (lease == null) {
            return;
        }
        long token = lease.token();
        FencegateClient c = gw.client();
        long t0 = Clock.nowUs();
        ReadOutcome read;
        try {
            read = options.control() == Control.PLAIN_READS ? c.get(options.store(), key) : c.get(options.store(), key, token);
            client.answered(gw);
        } catch (RuntimeException e) {
            client.failed(gw, c, Op.READ, key, token, null, t0, e);
            client.release(gw, key, lease);
            return;
        }
        String current = read instanceof ReadOutcome.Value v ? new String(v.bytes(), StandardCharsets.UTF_8) : null;
        client.record(gw, Op.READ, key, token, current, 0, t0, read instanceof Stale ? Outcome.FAIL : Outcome.OK,
                read instanceof Stale s ? "stale: item fenced at " + s.fence() : "");
        if (read instanceof Stale) {
            client.release(gw, key, lease);
            return;
        }
        client.pauseOrThink();
        Next next = next(client, current);
        write(client, gw, key, token, next);
        client.release(gw, key, lease);
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
