package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.IssuerUnavailableException;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

/**
 * Curator background calls as futures, each bounded by the operation timeout. Why bounded here:
 * Curator retries a background call through connection loss for as long as its retry policy
 * allows, and an unreachable ensemble must fail a caller in bounded time, never hang it.
 */
final class AsyncZk {

    /** Starts one background call, handing ZooKeeper's answer to the callback. */
    @FunctionalInterface
    interface Call {
        void start(BackgroundCallback callback) throws Exception;
    }

    private final Duration timeout;
    private final ScheduledExecutorService scheduler;
    /** Calls awaiting an answer, in the order they started, which is the order they fall due. */
    private final Queue<Pending> pending = new ConcurrentLinkedQueue<>();
    /** A timer is scheduled, due no later than the oldest pending call's deadline. */
    private final AtomicBoolean armed = new AtomicBoolean();

    AsyncZk(Duration timeout, ScheduledExecutorService scheduler) {
        this.timeout = timeout;
        this.scheduler = scheduler;
    }

    /** Completes when ZooKeeper answers, however late: for calls whose late success needs undoing. */
    CompletableFuture<CuratorEvent> unbounded(String what, Call call) {
        CompletableFuture<CuratorEvent> answer = new CompletableFuture<>();
        try {
            call.start((client, event) -> answer.complete(event));
        } catch (Exception e) {
            answer.completeExceptionally(new IssuerUnavailableException("ZooKeeper " + what + " failed: " + e, e));
        }
        return answer;
    }

    CompletableFuture<CuratorEvent> call(String what, Call call) {
        return bounded(what, unbounded(what, call));
    }

    /**
     * A view of {@code answer} that fails with IssuerUnavailableException after the timeout.
     * Why not a timer per call: scheduling one that becomes the scheduler's earliest task wakes its
     * thread, twice per acquire+release when one lease at a time is in flight (15-28 µs of CPU a
     * pair, measured with {@code ZooKeeperPairCost}). Every call has the same timeout, so calls
     * fall due in the order they started (two starting at once: within microseconds of it): one
     * timer, due at the oldest pending call's deadline, serves them all.
     */
    <T> CompletableFuture<T> bounded(String what, CompletableFuture<T> answer) {
        if (scheduler.isShutdown()) {
            return CompletableFuture.failedFuture(closed(null));
        }
        CompletableFuture<T> view = new CompletableFuture<>();
        answer.whenComplete((value, error) -> {
            if (error != null) {
                view.completeExceptionally(error);
            } else {
                view.complete(value);
            }
        });
        if (!view.isDone()) {
            dropAnswered();
            pending.add(new Pending(System.nanoTime() + timeout.toNanos(), what, view));
            arm();
        }
        return view;
    }

    /** Forgets answered calls at the head, so the queue holds about as many calls as are in flight. */
    private void dropAnswered() {
        for (Pending head = pending.peek(); head != null && head.view.isDone(); head = pending.peek()) {
            pending.remove(head);
        }
    }

    /** Schedules the timer unless one is already due no later than every pending deadline. */
    private void arm() {
        if (!armed.compareAndSet(false, true)) {
            return;
        }
        Pending head = pending.peek();
        long delay = head == null ? timeout.toNanos() : Math.max(0, head.deadline - System.nanoTime());
        try {
            scheduler.schedule(this::expire, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // Closed: no timer will ever fire, so every pending call fails now.
            for (Pending p = pending.poll(); p != null; p = pending.poll()) {
                p.view.completeExceptionally(closed(e));
            }
            armed.set(false);
        }
    }

    /** Fails the calls past their deadline, then re-arms for the oldest one still pending. */
    private void expire() {
        armed.set(false); // first: a call added from now on arms again, or is seen below
        long now = System.nanoTime();
        for (Pending head = pending.peek(); head != null; head = pending.peek()) {
            if (!head.view.isDone() && head.deadline - now > 0) {
                arm();
                return;
            }
            pending.remove(head);
            head.view.completeExceptionally(new IssuerUnavailableException(
                    "ZooKeeper did not answer " + head.what + " within " + timeout.toMillis() + " ms"));
        }
    }

    private static IssuerUnavailableException closed(Throwable cause) {
        return new IssuerUnavailableException("ZooKeeper lease issuer closed", cause);
    }

    /** A call awaiting its answer; identity equality, so removing one never removes another. */
    private static final class Pending {
        final long deadline;
        final String what;
        final CompletableFuture<?> view;

        Pending(long deadline, String what, CompletableFuture<?> view) {
            this.deadline = deadline;
            this.what = what;
            this.view = view;
        }
    }

    /** A read's answer, or null if the node does not exist. */
    CompletableFuture<CuratorEvent> readIfExists(String what, Call call) {
        return call(what, call).thenApply(event -> switch (code(event)) {
            case OK -> event;
            case NONODE -> null;
            default -> throw unexpected(what, event);
        });
    }

    static KeeperException.Code code(CuratorEvent event) {
        return KeeperException.Code.get(event.getResultCode());
    }

    /** The error for an answer no caller expects (connection loss, session expiry, auth...). */
    static IssuerUnavailableException unexpected(String what, CuratorEvent event) {
        return new IssuerUnavailableException("ZooKeeper " + what + " failed: " + code(event) + " on " + event.getPath());
    }
}
