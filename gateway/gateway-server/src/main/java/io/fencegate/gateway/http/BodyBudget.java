package io.fencegate.gateway.http;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Bytes a gateway holds for request bodies at once, and each API key's share of them. A body read
 * whole reserves its declared length (a chunked one, its limit) before a byte of it is read, a body
 * streamed into a store what it may buffer, and each gives them back when its answer is sent.
 * Without a bound, 64 PUTs of 16 MiB ran a 512 MiB gateway out of heap, and 160 slow bodies just
 * under 1 MiB ran a 256 MiB one out.
 *
 * <p>A reservation that does not fit waits, its request paused (TCP pushes back on the sender), in
 * arrival order, so a large body is never starved by later ones; a small one ({@link #SMALL}) that
 * fits is granted at once, so the usual write never waits behind a large one. A reservation that
 * would take its key past {@code perKey} is refused at once ({@link #reserve} answers null): one
 * key cannot hold the budget, or the head of the queue, against the others.
 *
 * <p>The same mechanism bounds the temporary disk of streamed bodies (another instance).
 */
final class BodyBudget {
    /** Bodies under this may pass the queue when they fit. */
    static final long SMALL = 1 << 20;

    private final long capacity;
    /** What one key's reservations may add up to, waiting ones included. */
    private final long perKey;
    /** The most one body reserves: a body over it still passes, alone. */
    private final long mostOneBody;
    private long free; // guarded by this
    private final Map<String, Long> heldByKey = new HashMap<>(); // guarded by this; queued bytes count too
    private final ArrayDeque<Reservation> queue = new ArrayDeque<>(); // guarded by this

    BodyBudget(long capacity, long perKey) {
        this.capacity = capacity;
        this.perKey = perKey;
        this.mostOneBody = Math.min(perKey, capacity);
        this.free = capacity;
    }

    /** A budget without per-key shares. */
    BodyBudget(long capacity) {
        this(capacity, Long.MAX_VALUE);
    }

    /** One body's claim: {@link #ready()} completes once it holds its bytes; {@link #release()} gives them back. */
    final class Reservation {
        private final String key;
        private final long bytes;
        private final CompletableFuture<Void> ready = new CompletableFuture<>();
        private boolean held; // guarded by BodyBudget.this
        private boolean done; // guarded by BodyBudget.this

        private Reservation(String key, long bytes) {
            this.key = key;
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
                heldByKey.computeIfPresent(key, (k, v) -> v - bytes == 0 ? null : v - bytes);
                granted = grant();
            }
            granted.forEach(r -> r.ready.complete(null));
        }
    }

    /**
     * Reserves {@code bytes} (at most the key's share, so one body over it can still pass alone) for
     * API key {@code key}; null if the key's bodies already hold or wait for their whole share.
     */
    Reservation reserve(String key, long bytes) {
        Reservation r = new Reservation(key, Math.min(Math.max(0, bytes), mostOneBody));
        List<Reservation> granted;
        synchronized (this) {
            long held = heldByKey.getOrDefault(key, 0L);
            if (r.bytes > perKey - held) {
                return null;
            }
            heldByKey.put(key, held + r.bytes);
            if (r.bytes < SMALL && r.bytes <= free) {
                free -= r.bytes;
                r.held = true;
                granted = List.of(r);
            } else {
                queue.add(r);
                granted = grant();
            }
        }
        granted.forEach(g -> g.ready.complete(null));
        return r;
    }

    /** Bytes free now (for tests and the status of a running gateway). */
    synchronized long free() {
        return free;
    }

    long capacity() {
        return capacity;
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
