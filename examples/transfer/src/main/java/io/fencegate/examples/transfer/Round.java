package io.fencegate.examples.transfer;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One mode, once: the tellers transfer; teller 0 reads two balances under its locks and is frozen
 * with SIGSTOP before it writes. It stays frozen until the data shows that newer holders have
 * committed transfers on its accounts since its read (the sum of its two balances moved, so its
 * write, if applied, cannot keep the total); then the other tellers finish the transfer in hand and
 * wait, and only then is it thawed and let write. Every step waits on what the data or the tellers
 * say, never on a sleep, so the stale write comes at the same point in every run on any machine.
 */
final class Round {
    private static final long STEP_TIMEOUT_MS = 60_000;

    /** What one mode did: the totals, the held teller's last word, and the transfers counted. */
    record Result(Mode mode, long before, long after, String held, long sumRead, long sumAtThaw, int committed,
                  int refused) {
        boolean exact() {
            return before == after;
        }
    }

    private final List<TellerProcess> tellers;
    private final BlockingQueue<TellerProcess.Event> events;

    Round(List<TellerProcess> tellers, BlockingQueue<TellerProcess.Event> events) {
        this.tellers = tellers;
        this.events = events;
    }

    /** {@code bank}: the mode's accounts, read plainly as they are now. */
    Result run(Mode mode, Balances bank) throws Exception {
        long before = bank.total();
        events.clear();
        TellerProcess held = tellers.get(0);
        for (TellerProcess teller : tellers) {
            teller.run(mode, teller == held);
        }
        TellerProcess.Event hold = await(held.id, "HOLD");
        held.freeze();
        String from = hold.args()[0];
        String to = hold.args()[1];
        long sumRead = Long.parseLong(hold.args()[2]) + Long.parseLong(hold.args()[3]);
        System.out.printf("  teller %d read %s = %s and %s = %s under its locks, and is frozen (SIGSTOP) before it writes%n",
                held.id, from, hold.args()[2], to, hold.args()[3]);
        int committed = 0;
        int refused = 0;
        long sumNow;
        List<TellerProcess> others = tellers.subList(1, tellers.size());
        while (true) {
            sumNow = awaitMoved(() -> bank.of(from) + bank.of(to), sumRead);
            for (TellerProcess teller : others) {
                teller.stop();
            }
            for (TellerProcess teller : others) {
                TellerProcess.Event idle = await(teller.id, "IDLE");
                committed += Integer.parseInt(idle.args()[0]);
                refused += Integer.parseInt(idle.args()[1]);
            }
            // The transfers they finished may (rarely) have put the sum back where it was read: then on.
            sumNow = bank.of(from) + bank.of(to);
            if (sumNow != sumRead) {
                break;
            }
            for (TellerProcess teller : others) {
                teller.run(mode, false);
            }
        }
        System.out.printf("  its locks passed on: newer holders moved %s + %s from %d to %d while it was stopped;%n"
                + "  the other tellers have finished the transfer in hand and wait%n", from, to, sumRead, sumNow);
        held.thaw();
        held.go();
        String wrote = String.join(" ", await(held.id, "WROTE").args());
        TellerProcess.Event idle = await(held.id, "IDLE");
        committed += Integer.parseInt(idle.args()[0]);
        refused += Integer.parseInt(idle.args()[1]);
        return new Result(mode, before, bank.total(), wrote, sumRead, sumNow, committed, refused);
    }

    private interface Sum {
        long now() throws Exception;
    }

    /** Polls the sum of the frozen teller's two balances until it differs from what that teller read. */
    private long awaitMoved(Sum sum, long sumRead) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STEP_TIMEOUT_MS);
        while (true) {
            long now = sum.now();
            if (now != sumRead) {
                return now;
            }
            failOnExit();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no other teller touched the frozen teller's accounts in "
                        + STEP_TIMEOUT_MS + " ms");
            }
            Thread.sleep(20);
        }
    }

    private void failOnExit() {
        for (TellerProcess.Event e : events) {
            if (e.kind().equals("EXIT")) {
                throw new IllegalStateException("teller " + e.actor() + " exited: " + tellers.get(e.actor()).otherOutput());
            }
        }
    }

    /** The next {@code kind} event of {@code teller}; reports ERROR events, fails on a teller's exit. */
    private TellerProcess.Event await(int teller, String kind) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STEP_TIMEOUT_MS);
        List<TellerProcess.Event> others = new java.util.ArrayList<>();
        try {
            while (System.nanoTime() < deadline) {
                TellerProcess.Event e = events.poll(100, TimeUnit.MILLISECONDS);
                if (e == null) {
                    continue;
                }
                if (e.actor() == teller && e.kind().equals(kind)) {
                    return e;
                }
                switch (e.kind()) {
                    case "EXIT" -> throw new IllegalStateException("teller " + e.actor() + " exited: "
                            + tellers.get(e.actor()).otherOutput());
                    case "ERROR" -> System.err.println("transfer: teller " + e.actor() + ": " + String.join(" ", e.args()));
                    default -> others.add(e);
                }
            }
            throw new IllegalStateException("teller " + teller + " did not say " + kind + " in " + STEP_TIMEOUT_MS + " ms");
        } finally {
            events.addAll(others); // another teller's IDLE may be awaited next
        }
    }
}
