package io.fencegate.store.backend;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The prologue of every store operation, written once: run the input checks (usually
 * {@link io.fencegate.store.StoreLimits}' {@code check…} methods) and, if one refuses the input, answer a failed
 * stage with its {@link IllegalArgumentException} without starting the operation, so bad input
 * fails the same way in every store and changes nothing.
 */
public final class GuardInputs {

    private GuardInputs() {}

    /** {@code operation}'s stage if {@code check} passes, else a stage failed with the refusal. */
    public static <T> CompletionStage<T> checked(Runnable check, Supplier<CompletionStage<T>> operation) {
        try {
            check.run();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return operation.get();
    }

    /**
     * As {@link #checked(Runnable, Supplier)}, for a check that also prepares the operation's
     * input (bound statement parameters, say), handed on to {@code operation}.
     */
    public static <A, T> CompletionStage<T> checked(Supplier<A> check, Function<A, CompletionStage<T>> operation) {
        A checked;
        try {
            checked = check.get();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return operation.apply(checked);
    }
}
