package io.fencegate.store.testkit;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** Waiting on stages in tests: bounded, and unwrapped to the exception the stage failed with. */
public final class Stages {

    /** Longer than any bounded backend timeout: reaching it means the adapter hung. */
    private static final long LIMIT_SECONDS = 60;

    private Stages() {
    }

    public static <T> T await(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("stage did not complete within " + LIMIT_SECONDS + " s: the adapter hangs", e);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    /**
     * The exception {@code call}'s stage failed with. Contract: bad input fails the stage, it
     * does not throw from the call itself.
     */
    public static Throwable failureOf(Supplier<? extends CompletionStage<?>> call) {
        CompletionStage<?> stage;
        try {
            stage = call.get();
        } catch (RuntimeException thrown) {
            throw new AssertionError("the call threw " + thrown + " instead of failing its stage", thrown);
        }
        try {
            Object value = stage.toCompletableFuture().get(LIMIT_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("expected the stage to fail, it completed with " + value);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            return cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("stage did not complete within " + LIMIT_SECONDS + " s: the adapter hangs", e);
        }
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof RuntimeException r) {
            return r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new CompletionException(cause);
    }
}
