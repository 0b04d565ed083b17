package io.fencegate.shedlock;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseWatchdog;
import java.time.Duration;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Starts a held lease's keep-alive once a third of its ttl has passed, not when it is granted.
 * Why: most job runs end well before their first renew is due, and starting the keep-alive at the
 * grant cost every run two timer entries and a wake-up of the watchdog's thread for nothing. Here
 * a grant is one entry in a queue whose one thread is woken only when the new entry is due before
 * everything it already waits for (rarely: leases of one job share a ttl, so later grants fall due
 * later). Nothing about the guarantee moves: the keep-alive's deadline counts from the grant (see
 * {@link LeaseWatchdog}), and the first renew goes out at the same ttl/3 as before, so a holder
 * paused past its ttl is told so on waking, as it was.
 */
final class KeepAliveStarts implements AutoCloseable {
    private static final int FIRST_PURGE_AT = 64;

    private final LeaseWatchdog watchdog;
    private final Thread thread;
    /** Guarded by this: held leases by the time their keep-alive is due (stopped ones go lazily). */
    private final PriorityQueue<Held> due = new PriorityQueue<>((a, b) -> Long.compare(a.dueNanos - b.dueNanos, 0));
    /** Guarded by this: when the thread wakes next without being notified; null: only when notified. */
    private Long wakeAt;
    private int purgeAt = FIRST_PURGE_AT;
    private boolean closed;

    KeepAliveStarts(LeaseWatchdog watchdog) {
        this.watchdog = watchdog;
        this.thread = new Thread(this::run, "fencegate-shedlock-keepalive");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Holds {@code lease}: its keep-alive starts a third of {@code ttl} after the grant, unless it
     * is stopped before. {@code onLost} is the keep-alive's (told once, if the lease ends under its holder).
     */
    Held hold(Lease lease, Duration ttl, Consumer<Lease> onLost) {
        long third = ttl.toNanos() / 3;
        Held held = new Held(lease, ttl, onLost, (lease.startKnown() ? lease.startedAtNanos() : System.nanoTime()) + third);
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("provider closed");
            }
            due.add(held);
            if (due.size() >= purgeAt) {
                // Stopped leases otherwise stay queued until they fall due: keep the queue within twice the live ones.
                due.removeIf(Held::isStopped);
                purgeAt = Math.max(FIRST_PURGE_AT, 2 * due.size());
            }
            if (wakeAt == null || held.dueNanos - wakeAt < 0) {
                notifyAll();
            }
        }
        return held;
    }

    /** Entries in the queue, stopped ones not purged yet included (for tests). */
    synchronized int queued() {
        return due.size();
    }

    /** Stops every held lease's renewals (the leases run out by their ttl). */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            due.forEach(Held::stop);
            due.clear();
            notifyAll();
        }
        thread.interrupt();
    }

    private void run() {
        while (true) {
            Held next;
            synchronized (this) {
                next = nextDue();
                if (next == null) {
                    return; // closed
                }
            }
            next.start(watchdog);
        }
    }

    /** Under the lock: waits for the next lease whose keep-alive is due; null once closed. */
    private Held nextDue() {
        while (!closed) {
            Held head = due.peek();
            if (head != null && head.isStopped()) {
                due.poll();
                continue;
            }
            long now = System.nanoTime();
            if (head != null && head.dueNanos - now <= 0) {
                return due.poll();
            }
            wakeAt = head == null ? null : head.dueNanos;
            try {
                if (head == null) {
                    wait();
                } else {
                    TimeUnit.NANOSECONDS.timedWait(this, head.dueNanos - now);
                }
            } catch (InterruptedException e) {
                return null; // only close() interrupts
            } finally {
                wakeAt = null;
            }
        }
        return null;
    }

    /** One held lease: not renewed yet, renewed by its keep-alive, or stopped. */
    static final class Held {
        private final Lease lease;
        private final Duration ttl;
        private final Consumer<Lease> onLost;
        private final long dueNanos;
        private LeaseWatchdog.KeepAlive keepAlive;
        private boolean stopped;

        private Held(Lease lease, Duration ttl, Consumer<Lease> onLost, long dueNanos) {
            this.lease = lease;
            this.ttl = ttl;
            this.onLost = onLost;
            this.dueNanos = dueNanos;
        }

        private synchronized void start(LeaseWatchdog watchdog) {
            if (stopped) {
                return;
            }
            try {
                keepAlive = watchdog.keepAlive(lease, ttl, onLost);
            } catch (IllegalStateException closed) {
                stopped = true; // the provider is closing: the lease runs out by its ttl
            }
        }

        /** Stops renewing (or never starts); the lease is not released here. */
        synchronized void stop() {
            stopped = true;
            if (keepAlive != null) {
                keepAlive.stop();
            }
        }

        /** Whether the keep-alive has started (for tests). */
        synchronized boolean started() {
            return keepAlive != null;
        }

        /** Whether renewing stopped: stopped here, or the keep-alive ended (the lease was lost). */
        synchronized boolean isStopped() {
            return stopped || keepAlive != null && keepAlive.isStopped();
        }
    }
}
