package io.fencegate.check;

import io.fencegate.client.ReadOutcome;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/** Runs a workload's clients in this process, then reads every item once more: the final reads. */
public final class Runner {
    private Runner() {}

    /** Runs the clients until {@code options.seconds()} have passed and they have stopped. */
    public static History run(RunOptions options) throws InterruptedException, SQLException {
        History history = new History().describe(options.workload().label(), options.control().label());
        Gateways gateways = new Gateways(options.gateways(), options.apiKey(), Duration.ofSeconds(5));
        long deadlineUs = Clock.nowUs() + options.seconds() * 1_000_000L;
        List<Thread> threads = new ArrayList<>();
        List<BypassWriter> bypasses = new ArrayList<>();
        Takeover takeover = new Takeover();
        try {
            options.workload().setUp(new ClientLoop(options, gateways, history, options.firstClient(), deadlineUs, null), gateways);
            for (int i = 0; i < options.clients(); i++) {
                BypassWriter bypass = null;
                if (options.control() == Control.BYPASS_GUARD) {
                    List<String> db = options.bypassJdbc();
                    bypass = new BypassWriter(db.get(0), db.size() > 1 ? db.get(1) : "", db.size() > 2 ? db.get(2) : "");
                    bypasses.add(bypass);
                }
                Thread t = new Thread(new ClientLoop(options, gateways, history, options.firstClient() + i, deadlineUs, bypass,
                        takeover),
                        "check-client-" + i);
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) {
                // a client ends its last step (at most a pause and a few timeouts) after the deadline
                t.join(TimeUnit.SECONDS.toMillis(options.seconds() + 60));
                t.interrupt();
            }
        } finally {
            for (BypassWriter b : bypasses) {
                b.close();
            }
        }
        return history;
    }

    /** The final reads of what the history's workload wrote ({@link Workload#finalReads}), recorded as {@code final} operations. */
    public static void finalReads(History history, List<URI> gateways, String apiKey, String store) {
        Gateways all = new Gateways(gateways, apiKey, Duration.ofSeconds(10));
        Workload w = history.workload() == null ? Workload.COUNTER : Workload.parse(history.workload());
        w.finalReads(history, all, store);
    }

    /** Plain reads of every item the history wrote. */
    static void finalItemReads(History history, Gateways all, String store) {
        Set<String> keys = new TreeSet<>();
        for (Op op : history.ops()) {
            if (op.is(Op.WRITE)) {
                keys.add(op.key());
            }
        }
        for (String key : keys) {
            for (int attempt = 0; attempt < 30; attempt++) { // the deployment may still be recovering from a fault
                Gateways.Gateway gw = all.get(attempt % all.size());
                long t0 = Clock.nowUs();
                try {
                    ReadOutcome read = gw.client().get(store, key);
                    String value = read instanceof ReadOutcome.Value v ? new String(v.bytes(), StandardCharsets.UTF_8) : null;
                    long writtenWith = read instanceof ReadOutcome.Value v ? v.token() : 0;
                    history.add(new Op(-1, Op.FINAL, key, 0, value, writtenWith, t0, Clock.nowUs(), Outcome.OK, "", gw.url()));
                    break;
                } catch (RuntimeException e) {
                    history.add(new Op(-1, Op.FINAL, key, 0, null, 0, t0, Clock.nowUs(), Outcome.UNKNOWN, ClientLoop.describe(e), gw.url()));
                    sleep(1000);
                }
            }
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
