package io.fencegate.gateway.http;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The bytes of large request bodies this JVM holds at once. A body for a store that takes values
 * whole is read whole into the heap, and each one in flight costs about twice its size until its
 * answer is sent (a store that streams values gets large bodies piece by piece,
 * {@link StreamedBodies}, and they take no part here): without a bound, 64 PUTs of 16 MiB at once ran a 512 MiB gateway out of heap. A large
 * body reserves its size before it is read and gives it back when its answer is sent; one that
 * cannot reserve waits, its request paused (TCP pushes back on the sender), in arrival order, so
 * a large body is never starved by later ones. Bodies under {@link #SMALL} bytes do not take part:
 * they cost little, and the usual write never waits here.
 */
final class BodyBudget {
    /** Smaller bodies are not counted. */
    static final long SMALL = 1 << 20;
    /** This JVM's budget: an eighth of the heap, at least one body of the default limit (16 MiB). */
    static final BodyBudget HEAP = new BodyBudget(Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 8));

    private final long capacity;
    private long free; // guarded by this
    private final ArrayDeque<Reservation> queue = new ArrayDeque<>(); // guarded by this

    BodyBudget(long capacity) {
        this.capacity = capacity;
        this.free = capacity;
    }

    /** One body's claim: {@link #ready()} completes once it holds its bytes; {@link #release()} gives them back. */
    final class Reservation {
        private final long bytes;
        private final CompletableFuture<Void> ready = new CompletableFuture<>();
        private boolean held; // guarded by BodyBudget.this
        private boolean done; // guarded by BodyBudget.this

        private Reservation(long bytes) {
            this.bytes = bytes;
        }

        CompletableFuture<Void> ready() {
            return ready;
        }

        /** Gives the bytes back, or leaves the queue if still waiting (a timed-out request). Idempotent. */
        void release() {
            List<Reservation> granted;
            synchronized (BodyBudget.this) {
                if (done) {
                    return;
                }
                done = true;
                if (held) {
                    free += bytes;
                } else {
                    queue.remove(this);
                }
                granted = grant();
            }
            granted.forEach(r -> r.ready.complete(null));
        }
    }

    /**
     * Reserves {@code bytes} (at most the whole budget, so one body over it can still pass alone);
     * bodies under {@link #SMALL} are granted at once and hold nothing.
     */
    Reservation reserve(long bytes) {
        if (bytes < SMALL) {
            // Granted at once and never queued: behind a large body that waits, it would wait too.
            Reservation small = new Reservation(0);
            synchronized (this) {
                small.held = true;
            }
            small.ready.complete(null);
            return small;
        }
        Reservation r = new Reservation(Math.min(bytes, capacity));
        List<Reservation> granted;
        synchronized (this) {
            queue.add(r);
            granted = grant();
        }
        granted.forEach(g -> g.ready.complete(null));
        return r;
    }

    /** Bytes free now (for tests and the status of a running gateway). */
    synchronized long free() {
        return free;
    }

    /** Grants the queue's head while it fits; the futures are completed by the caller, outside the lock. */
    private List<Reservation> grant() {
        List<Reservation> granted = new ArrayList<>();
        while (!queue.isEmpty() && queue.peek().bytes <= free) {
            Reservation head = queue.poll();
            free -= head.bytes;
            head.held = true;
            granted.add(head);
        }
        return granted;
    }
}
