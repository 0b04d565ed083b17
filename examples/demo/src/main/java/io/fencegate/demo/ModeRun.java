package io.fencegate.demo;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run of one mode: stock a fresh sku, let every buyer sell it, freeze one buyer (SIGSTOP)
 * in its payment step, keep it frozen until at least {@code pauseMs} have passed and another
 * buyer has read the stock (so the lock has really passed on), then thaw it (SIGCONT) and let it
 * write. Counts what the buyers were told and what the data says.
 */
final class ModeRun {
    /** Lease ttl; the gateway's issuer ends the lease by its own clock when it passes. */
    static final long TTL_MS = 800;
    /** Time between a buyer's read and its write: the payment, where a pause hurts. */
    static final long PAYMENT_MS = 250;
    private static final long RUN_TIMEOUT_MS = 60_000;

    private final List<BuyerProcess> buyers;
    private final BlockingQueue<BuyerProcess.Event> events;
    private final Databases db;
    private final FencegateClient gateway;

    ModeRun(List<BuyerProcess> buyers, BlockingQueue<BuyerProcess.Event> events, Databases db, FencegateClient gateway) {
        this.buyers = buyers;
        this.events = events;
        this.db = db;
        this.gateway = gateway;
    }

    ModeResult run(Mode mode, int stock, long pauseMs, int attempt) throws Exception {
        String sku = "widget-m" + mode.number + "-" + attempt + "-" + Long.toHexString(System.nanoTime() & 0xffffff);
        stock(mode, sku, stock);
        events.clear();
        for (BuyerProcess buyer : buyers) {
            buyer.run(mode, sku, TTL_MS, PAYMENT_MS);
        }
        BuyerProcess victim = buyers.get(0);
        int done = 0;
        int sold = 0;
        int stale = 0;
        long frozenAt = 0;
        long thawedAt = 0;
        boolean frozen = false;
        boolean thawed = false;
        boolean successorRead = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_TIMEOUT_MS);
        while (done < buyers.size()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("mode " + mode.number + " did not finish in " + RUN_TIMEOUT_MS + " ms");
            }
            BuyerProcess.Event event = events.poll(5, TimeUnit.MILLISECONDS);
            if (frozen && !thawed && successorRead && System.nanoTime() - frozenAt >= TimeUnit.MILLISECONDS.toNanos(pauseMs)) {
                victim.thaw();
                thawedAt = System.nanoTime();
                thawed = true;
            }
            if (event == null) {
                continue;
            }
            switch (event.kind()) {
                case "PAY" -> {
                    if (event.actor() == victim.id && !frozen) {
                        victim.freeze();
                        frozenAt = System.nanoTime();
                        frozen = true;
                    }
                }
                // Only the victim held the lock when it froze: another buyer reading means the lock passed on.
                case "READ" -> successorRead |= frozen && event.actor() != victim.id;
                case "WROTE" -> {
                    if (event.args()[1].equals("applied")) {
                        sold++;
                    } else {
                        stale++;
                    }
                }
                case "DONE" -> done++;
                case "ERROR" -> System.err.println("demo: buyer " + event.actor() + ": " + String.join(" ", event.args()));
                case "EXIT" -> throw new IllegalStateException("buyer " + event.actor() + " exited: "
                        + buyers.get(event.actor()).otherOutput());
                default -> { }
            }
        }
        if (frozen && !thawed) {
            victim.thaw(); // every other buyer finished first; the victim never got to write
            thawedAt = System.nanoTime();
        }
        long pausedMs = frozen ? TimeUnit.NANOSECONDS.toMillis(thawedAt - frozenAt) : 0;
        if ((mode == Mode.LOCK_ONLY || mode == Mode.JDBC_GUARD_ROW) && db.orders(sku) != sold) {
            // Each confirmed sale inserted one order row; a mismatch would be the demo's own bug.
            throw new IllegalStateException("mode " + mode.number + ": buyers confirmed " + sold + " sales but "
                    + db.orders(sku) + " order rows exist");
        }
        return new ModeResult(mode, stock, sold, stockLeft(mode, sku), stale, pausedMs, attempt);
    }

    private String key(String sku) {
        return "stock/" + sku;
    }

    private void stock(Mode mode, String sku, int stock) throws Exception {
        if (mode == Mode.LOCK_ONLY || mode == Mode.JDBC_GUARD_ROW) {
            db.stock(sku, stock);
            return;
        }
        String lock = Databases.GATEWAY_STORE + "/" + key(sku);
        Lease lease = gateway.acquire(lock, Duration.ofSeconds(10), Duration.ofSeconds(10)).orElseThrow();
        if (!gateway.put(Databases.GATEWAY_STORE, key(sku), lease.token(), Integer.toString(stock).getBytes(UTF_8)).applied()) {
            throw new IllegalStateException("could not stock " + sku);
        }
        gateway.release(lease.leaseId());
    }

    private int stockLeft(Mode mode, String sku) throws Exception {
        if (mode == Mode.LOCK_ONLY || mode == Mode.JDBC_GUARD_ROW) {
            return db.stockLeft(sku);
        }
        ReadOutcome read = gateway.get(Databases.GATEWAY_STORE, key(sku));
        if (read instanceof ReadOutcome.Value value) {
            return Integer.parseInt(new String(value.bytes(), UTF_8));
        }
        throw new IllegalStateException("stock item " + sku + " is missing: " + read);
    }
}
