package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.IssuerUnavailableException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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

    /** A view of {@code answer} that fails with IssuerUnavailableException after the timeout. */
    <T> CompletableFuture<T> bounded(String what, CompletableFuture<T> answer) {
        CompletableFuture<T> view = new CompletableFuture<>();
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> view.completeExceptionally(new IssuerUnavailableException(
                    "ZooKeeper did not answer " + what + " within " + timeout.toMillis() + " ms")),
                    timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IssuerUnavailableException("ZooKeeper lease issuer closed", e));
        }
        answer.whenComplete((value, error) -> {
            timer.cancel(false);
            if (error != null) {
                view.completeExceptionally(error);
            } else {
                view.complete(value);
            }
        });
        return view;
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
