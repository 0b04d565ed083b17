package io.fencegate.examples.slots;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The workers' events as they come, kept: the example waits on what the workers say, never on a
 * sleep. A worker that exits fails the wait at once, with what it printed.
 */
final class Events {
    private final BlockingQueue<WorkerProcess.Event> queue;
    private final List<WorkerProcess> workers;
    private final List<WorkerProcess.Event> seen = new ArrayList<>();

    Events(BlockingQueue<WorkerProcess.Event> queue, List<WorkerProcess> workers) {
        this.queue = queue;
        this.workers = workers;
    }

    /** The first event, seen already or to come, that matches; fails after {@code seconds}. */
    WorkerProcess.Event await(String what, long seconds, Predicate<WorkerProcess.Event> wanted) throws InterruptedException {
        for (WorkerProcess.Event e : seen) {
            if (wanted.test(e)) {
                return e;
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("waited " + seconds + " s for " + what);
            }
            WorkerProcess.Event e = queue.poll(left, TimeUnit.NANOSECONDS);
            if (e == null) {
                continue;
            }
            seen.add(e);
            if (e.kind().equals("EXIT")) {
                throw new IllegalStateException("worker " + e.worker() + " exited while the example waited for " + what
                        + ": " + workers.get(e.worker()).otherOutput());
            }
            if (wanted.test(e)) {
                return e;
            }
        }
    }

    /** The next {@code kind} event of {@code worker}, not one seen before it was asked for. */
    WorkerProcess.Event next(int worker, String kind, long seconds) throws InterruptedException {
        int from = seen.size();
        return await(kind + " from worker " + worker, seconds,
                e -> e.worker() == worker && e.kind().equals(kind) && seen.indexOf(e) >= from);
    }

    /** Waits until the events tell of {@code jobs} jobs done on {@code slot}, by any worker. */
    void awaitDone(int slot, long jobs, long seconds) throws InterruptedException {
        await(jobs + " jobs done on slot " + slot, seconds, e -> doneOn(slot) >= jobs);
    }

    private long doneOn(int slot) {
        return seen.stream().filter(e -> e.kind().equals("DONE") && Integer.parseInt(e.args()[0]) == slot).count();
    }
}
