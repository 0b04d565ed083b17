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
        return awaitSince(0, what, seconds, wanted);
    }

    /** Where the events seen so far end: {@link #awaitSince} looks only at those that come after. */
    int mark() {
        return seen.size();
    }

    /** The first event after {@code mark}, seen already or to come, that matches; fails after {@code seconds}. */
    WorkerProcess.Event awaitSince(int mark, String what, long seconds, Predicate<WorkerProcess.Event> wanted)
            throws InterruptedException {
        for (WorkerProcess.Event e : seen.subList(mark, seen.size())) {
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
                throw new IllegalStateException("worker " + e.actor() + " exited while the example waited for " + what
                        + "; it printed:\n" + workers.get(e.actor()).output());
            }
            if (wanted.test(e)) {
                return e;
            }
        }
    }

    /** The first {@code kind} event of {@code worker}, seen already or to come. */
    WorkerProcess.Event first(int worker, String kind, long seconds) throws InterruptedException {
        return await(kind + " from worker " + worker, seconds, e -> e.actor() == worker && e.kind().equals(kind));
    }

    /** Waits until the events tell of {@code jobs} jobs done on {@code slot}, by any worker. */
    void awaitDone(int slot, long jobs, long seconds) throws InterruptedException {
        await(jobs + " jobs done on slot " + slot, seconds, e -> doneOn(slot) >= jobs);
    }

    private long doneOn(int slot) {
        return seen.stream().filter(e -> e.kind().equals("DONE") && Integer.parseInt(e.args()[0]) == slot).count();
    }
}
