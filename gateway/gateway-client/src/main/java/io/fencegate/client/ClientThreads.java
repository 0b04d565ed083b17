package io.fencegate.client;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The client's own threads, where asynchronous exchanges run and their futures complete.
 *
 * <p>A call started on one of them while it completes a future (a dependent stage calling the client
 * again, the usual chain) is not handed to another thread: it waits for this one, which runs it as
 * soon as the completion returns. That saves a thread wake-up and a park a request, most of what the
 * hand-off cost (docs/PERFORMANCE.md, "Performance: where a request's time goes"). Only the first such call waits; further ones start
 * on other threads at once, so calls made together still run together. A dependent stage may still
 * block, even on the call it started: a call that has waited {@link #RESCUE_AFTER_NANOS} is handed to
 * another thread by a rescuer thread, which only wakes (at most once per that interval) while calls wait.
 */
final class ClientThreads {
    /** How long a call waits for its thread's completion to return before another thread takes it. */
    static final long RESCUE_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How many idle rescue intervals the rescuer keeps looking before it parks until woken. */
    private static final int LINGER = 200;

    /** One thread per exchange in flight, made on demand; daemon, and gone after a minute idle. */
    private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> daemon(r, "fencegate-client"));
    /** Set while one of {@link #POOL}'s threads runs a task: the call that waits for it, if any. */
    private static final ThreadLocal<Waiting[]> CURRENT = new ThreadLocal<>();
    private static final ConcurrentLinkedQueue<Waiting> WAITING = new ConcurrentLinkedQueue<>();
    private static volatile boolean rescuerParked;
    private static final Thread RESCUER = daemon(ClientThreads::rescue, "fencegate-client-rescuer");

    static {
        RESCUER.start();
    }

    private ClientThreads() {}

    /** Runs {@code task} on one of the client's threads: this one after its completion, if it is one and free to. */
    static void execute(Runnable task) {
        Waiting[] next = CURRENT.get();
        if (next != null && next[0] == null) {
            Waiting w = new Waiting(task, System.nanoTime());
            next[0] = w;
            WAITING.add(w);
            if (rescuerParked) {
                LockSupport.unpark(RESCUER);
            }
            return;
        }
        POOL.execute(() -> runHere(task));
    }

    /** Runs {@code task}, then the call it left waiting (if nobody took it meanwhile), and so on. */
    private static void runHere(Runnable task) {
        Waiting[] next = new Waiting[1];
        CURRENT.set(next);
        try {
            for (Runnable run = task; run != null; ) {
                next[0] = null;
                run.run();
                Waiting w = next[0];
                run = w != null && w.claim() ? w.task : null;
            }
        } finally {
            CURRENT.remove();
        }
    }

    /** Hands calls that waited too long (their thread blocked in a dependent stage) to other threads. */
    private static void rescue() {
        int idle = 0;
        while (true) {
            Waiting w = WAITING.peek();
            if (w == null) {
                if (++idle < LINGER) {
                    LockSupport.parkNanos(RESCUE_AFTER_NANOS);
                } else {
                    rescuerParked = true;
                    if (WAITING.isEmpty()) {
                        LockSupport.park();
                    }
                    rescuerParked = false;
                    idle = 0;
                }
                continue;
            }
            idle = 0;
            if (w.taken.get()) {
                WAITING.poll();
                continue;
            }
            long left = w.since + RESCUE_AFTER_NANOS - System.nanoTime();
            if (left > 0) {
                LockSupport.parkNanos(left);
                continue;
            }
            WAITING.poll();
            if (w.claim()) {
                POOL.execute(() -> runHere(w.task));
            }
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** A call waiting for its thread; whoever claims it first (that thread or the rescuer) runs it. */
    private static final class Waiting {
        final Runnable task;
        final long since;
        final AtomicBoolean taken = new AtomicBoolean();

        Waiting(Runnable task, long since) {
            this.task = task;
            this.since = since;
        }

        boolean claim() {
            return taken.compareAndSet(false, true);
        }
    }
}
