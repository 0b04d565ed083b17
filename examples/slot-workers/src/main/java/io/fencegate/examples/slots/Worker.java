package io.fencegate.examples.slots;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.LeaseKeepAlive;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.WriteOutcome;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One worker process. It takes a permit of the fenced semaphore {@link #SEMAPHORE} (as many permits
 * as slots), and while it holds it, works the partition of its slot {@code k}: the item
 * {@code slot/k} of store {@link #STORE}, which the slot's lock {@code jobs/slot/k} guards. Each
 * job is a fenced read of the partition under the permit's token, the job, and a guarded write of
 * the partition with its line added. A worker with no permit free waits for one.
 *
 * <p>Commands come on stdin ({@code GATEWAY <uri>}, {@code START}, {@code HOLD}, {@code GO},
 * {@code STOP}, {@code QUIT}); what it does goes to stdout as {@code EV <worker> <event> ...} lines.
 * Told to {@code HOLD}, it stops at its next job between the read and the write, says {@code HOLD},
 * and waits for {@code GO}: the example freezes it there with SIGSTOP, so the pause lands in the
 * read-modify-write window every run (a GC pause or a VM freeze lands wherever it lands).
 */
public final class Worker {
    static final String STORE = "jobs";
    /** Slot k of this semaphore is the lock {@code jobs/slot/k}: the lock of item {@code slot/k} of {@link #STORE}. */
    static final String SEMAPHORE = STORE + "/slot";
    static final Duration TTL = Duration.ofMillis(1500);
    private static final Duration PERMIT_WAIT = Duration.ofSeconds(5);
    /** What a job "takes": the example's jobs are the ledger lines themselves. */
    private static final long JOB_MS = 50;

    private final int id;
    private final int slots;
    private volatile FencegateClient gateway;
    private final CountDownLatch started = new CountDownLatch(1);
    private final Semaphore go = new Semaphore(0);
    private volatile boolean hold;
    private volatile boolean stop;

    private Worker(int id, int slots) {
        this.id = id;
        this.slots = slots;
    }

    static String partition(int slot) {
        return "slot/" + slot;
    }

    /** {@code <worker id> <slots>}. */
    public static void main(String[] args) throws Exception {
        Worker worker = new Worker(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
        Thread commands = new Thread(worker::readCommands, "worker-commands");
        commands.setDaemon(true);
        commands.start();
        worker.emit("READY");
        worker.started.await();
        int done = worker.run();
        worker.emit("STOPPED " + done);
        System.exit(0);
    }

    private void readCommands() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, UTF_8))) {
            for (String line; (line = in.readLine()) != null && !line.equals("QUIT"); ) {
                switch (line.split(" ")[0]) {
                    case "GATEWAY" -> gateway = FencegateClient.builder(line.split(" ")[1])
                            .timeout(Duration.ofSeconds(10)).build();
                    case "START" -> started.countDown();
                    case "HOLD" -> hold = true;
                    case "GO" -> go.release();
                    case "STOP" -> stop = true;
                    default -> emit("ERROR unknown command " + line);
                }
            }
        } catch (Exception e) {
            emit("ERROR " + e);
        }
        stop = true;
        started.countDown();
    }

    /** Takes a permit, works its slot while the permit is held; again, until told to stop. Jobs done. */
    private int run() throws InterruptedException {
        int done = 0;
        while (!stop) {
            try {
                Optional<Lease> permit = gateway.acquirePermit(SEMAPHORE, slots, TTL, PERMIT_WAIT);
                if (permit.isEmpty()) {
                    continue; // every slot is held: wait again
                }
                try (LeaseKeepAlive held = gateway.keepAlive(permit.get(), TTL, null)) {
                    emit("SLOT " + held.slot() + " " + held.token());
                    done += work(held);
                }
            } catch (RuntimeException e) {
                emit("ERROR " + e.toString().replace('\n', ' '));
                Thread.sleep(200);
            }
        }
        return done;
    }

    /** Jobs on the permit's slot until the permit is lost, a write is refused, or STOP. Jobs done. */
    private int work(LeaseKeepAlive held) throws InterruptedException {
        int slot = held.slot();
        long token = held.token();
        String key = partition(slot);
        int done = 0;
        while (!stop && held.held()) {
            // Fenced read: raises the partition's fence to this token, so every holder of the slot
            // before this one is refused from now on, even one that read before and writes after.
            ReadOutcome read = gateway.get(STORE, key, token);
            if (read instanceof Stale stale) {
                emit("LOST " + slot + " read " + stale.fence());
                return done;
            }
            Ledger ledger = Ledger.parse(read instanceof ReadOutcome.Value v ? new String(v.bytes(), UTF_8) : "");
            Thread.sleep(JOB_MS);
            if (hold) {
                hold = false;
                emit("HOLD " + slot + " " + ledger.lastJob() + " " + token);
                if (!go.tryAcquire(5, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("no GO in 5 minutes");
                }
                // No held() check here: a pause can come right after any check, as it did here.
            }
            WriteOutcome wrote = gateway.put(STORE, key, token, ledger.withNextJob(id, token).getBytes(UTF_8));
            if (wrote instanceof Stale stale) {
                // Its partition's data is safe: the write changed nothing. This worker stops.
                emit("REFUSED " + slot + " " + (ledger.lastJob() + 1) + " " + token + " " + stale.fence() + " "
                        + stale.currentToken());
                stop = true;
                return done;
            }
            done++;
            emit("DONE " + slot + " " + (ledger.lastJob() + 1));
        }
        if (!stop) {
            emit("LOST " + slot + " keepalive");
        }
        return done;
    }

    private void emit(String event) {
        synchronized (System.out) {
            System.out.println("EV " + id + " " + event);
            System.out.flush();
        }
    }
}
