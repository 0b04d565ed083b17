package io.fencegate.store.backend;

import io.fencegate.store.GuardedOp;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
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

    /** Throws {@link IllegalArgumentException} if a key appears twice in {@code ops} ({@link io.fencegate.store.GuardedStore#writeAll}). */
    public static void requireDistinctKeys(List<GuardedOp> ops) {
        Set<String> keys = new HashSet<>(ops.size() * 2);
        for (GuardedOp op : ops) {
            if (!keys.add(op.key())) {
                throw new IllegalArgumentException("key '" + op.key() + "' appears twice in one writeAll; order such writes yourself");
            }
        }
    }

    /**
     * {@link io.fencegate.store.GuardedStore#writeAll} for a store that queues its writes: {@code check} each op (its
     * stage fails with the refusal), hand the rest to {@code operation} at once, and answer in
     * {@code ops}' order.
     */
    public static <T> List<CompletionStage<T>> checkedAll(List<GuardedOp> ops, Consumer<GuardedOp> check,
            Function<List<GuardedOp>, List<? extends CompletionStage<T>>> operation) {
        requireDistinctKeys(ops);
        List<CompletionStage<T>> answers = new ArrayList<>(ops.size());
        List<GuardedOp> passed = new ArrayList<>(ops.size());
        List<Integer> where = new ArrayList<>(ops.size());
        for (GuardedOp op : ops) {
            try {
                check.accept(op);
                where.add(answers.size());
                passed.add(op);
                answers.add(null);
            } catch (IllegalArgumentException e) {
                answers.add(CompletableFuture.failedFuture(e));
            }
        }
        if (!passed.isEmpty()) {
            List<? extends CompletionStage<T>> queued = operation.apply(passed);
            for (int i = 0; i < queued.size(); i++) {
                answers.set(where.get(i), queued.get(i));
            }
        }
        return answers;
    }
}
