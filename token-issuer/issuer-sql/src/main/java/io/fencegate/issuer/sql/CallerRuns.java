package io.fencegate.issuer.sql;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Hands the issuer's JDBC calls to its threads, and lets a caller that blocks on a call's answer
 * run the call itself if no thread has started it yet. A blocking caller ({@code
 * acquire(...).toCompletableFuture().get()}, as ShedLock, Spring's lock registries and most
 * application code call) would otherwise wait for two thread hand-offs a call: the issuer's thread
 * woken to run it, then the caller woken by its answer. On an idle host each wake-up of a sleeping
 * core costs about as much as a statement on a local database, so an uncontended acquire and
 * release from one thread paid for four of them on top of its two statements.
 *
 * <p>At most {@code slots} calls run at once, on the issuer's threads and on callers' together, as
 * many as the issuer's pool: a caller runs a call only if a slot is free at once, and waits for the
 * issuer's thread otherwise. A caller runs a call only in {@code get()}, {@code join()} or a {@code
 * get(timeout)} of at least {@code helpAtLeast}: a call is bounded by the statement and connect
 * timeouts, and a shorter wait than those is the caller's to keep. Callers that chain on the stage
 * (the gateway, every asynchronous caller) never run anything themselves.
 */
final class CallerRuns {
    private final Executor executor;
    private final Semaphore slots;
    private final long helpAtLeastNanos;

    CallerRuns(Executor executor, int slots, long helpAtLeastNanos) {
        this.executor = executor;
        this.slots = new Semaphore(slots);
        this.helpAtLeastNanos = helpAtLeastNanos;
    }

    /** A future a blocking caller may run {@link #submit submitted} calls of. */
    <T> Answer<T> answer() {
        return new Answer<>(this, new AtomicReference<>());
    }

    /** Hands {@code call} to the issuer's threads; a caller blocked on {@code answer} may run it first. */
    void submit(Answer<?> answer, Runnable call) {
        answer.pending.set(call);
        try {
            executor.execute(() -> {
                if (answer.pending.compareAndSet(call, null)) {
                    slots.acquireUninterruptibly();
                    try {
                        call.run();
                    } finally {
                        slots.release();
                    }
                }
            });
        } catch (RejectedExecutionException closed) {
            answer.pending.compareAndSet(call, null); // the issuer closed: nobody runs it
            throw closed;
        }
    }

    /**
     * The answer of calls handed to the issuer's threads. Its dependents (thenApply, …) share its
     * pending call, so a caller blocked on one of them runs it as well.
     */
    static final class Answer<T> extends CompletableFuture<T> {
        private final CallerRuns runs;
        private final AtomicReference<Runnable> pending;

        private Answer(CallerRuns runs, AtomicReference<Runnable> pending) {
            this.runs = runs;
            this.pending = pending;
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new Answer<>(runs, pending);
        }

        @Override
        public T get() throws InterruptedException, ExecutionException {
            help();
            return super.get();
        }

        @Override
        public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            if (unit.toNanos(timeout) >= runs.helpAtLeastNanos) {
                help();
            }
            return super.get(timeout, unit);
        }

        @Override
        public T join() {
            help();
            return super.join();
        }

        /**
         * Runs the pending call, and any the call hands on at once (a retry), while a slot is free. An
         * interrupted caller runs nothing: it is answered by its interrupt, as before it waited.
         */
        private void help() {
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
            for (Runnable call = pending.get(); call != null && !isDone(); call = pending.get()) {
                if (!runs.slots.tryAcquire()) {
                    return;
                }
                try {
                    if (pending.compareAndSet(call, null)) {
                        call.run();
                    }
                } finally {
                    runs.slots.release();
                }
            }
        }
    }
}
