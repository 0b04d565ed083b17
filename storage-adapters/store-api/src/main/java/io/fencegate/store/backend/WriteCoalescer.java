package io.fencegate.store.backend;

import io.fencegate.store.GuardedOp;
import io.fencegate.store.WriteResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Coalesces the guarded writes in flight into batches, for a backend that judges many rows in
 * one statement or transaction (one round trip and one commit for the lot). Batching is
 * opportunistic, with no timer: a batch is what is queued when one of {@code slots} (a store's
 * connections) is free, so a lone write leaves at once, alone, and batches grow only when writes
 * arrive faster than the backend answers.
 *
 * <p>Two writes to one key never share a batch: the later one stays queued for a later batch.
 * A statement cannot judge one row twice, and the answers must follow one serial order per key.
 * A batch reaches its runner sorted by key, so batches that share rows lock them in one order
 * and cannot deadlock each other.
 */
public final class WriteCoalescer {

    /** One queued guarded write ({@code value} null: a delete); its runner completes {@code answer}. */
    public record Write(String key, long token, byte[] value, CompletableFuture<WriteResult> answer) {

        /** Answers {@code result}, or {@code failure} (unwrapped from a CompletionException) if not null. */
        public void settle(WriteResult result, Throwable failure) {
            if (failure == null) {
                answer.complete(result);
            } else {
                answer.completeExceptionally(unwrapped(failure));
            }
        }
    }

    /** Runs one batch: completes every write's answer; the returned stage ends when its slot is free. */
    @FunctionalInterface
    public interface Runner {
        CompletionStage<?> run(List<Write> batch);
    }

    // The order transactions lock items in too (ItemTransactions), so a batch and a transaction cannot deadlock.
    private static final Comparator<Write> BY_KEY = Comparator.comparing(Write::key, ItemTransactions.KEY_ORDER);

    private final int slots;
    private final int maxBatch;
    private final long maxBatchBytes;
    private final Runner runner;
    private final ArrayDeque<Write> queue = new ArrayDeque<>();
    private int running;
    private volatile Consumer<List<Write>> observer;

    /**
     * @param slots         batches running at once (the store's connections)
     * @param maxBatch      most writes in one batch
     * @param maxBatchBytes most bytes in one batch, counting a write as its value plus three bytes
     *                      a key character (UTF-8 at worst); a larger write goes alone
     */
    public WriteCoalescer(int slots, int maxBatch, long maxBatchBytes, Runner runner) {
        if (slots < 1 || maxBatch < 1 || maxBatchBytes < 1) {
            throw new IllegalArgumentException("slots, maxBatch and maxBatchBytes must be positive: " + slots + ", "
                    + maxBatch + ", " + maxBatchBytes);
        }
        this.slots = slots;
        this.maxBatch = maxBatch;
        this.maxBatchBytes = maxBatchBytes;
        this.runner = runner;
    }

    /** Queues a write; its stage completes with its own answer, or its own failure. */
    public CompletionStage<WriteResult> submit(String key, long token, byte[] value) {
        Write write = new Write(key, token, value, new CompletableFuture<>());
        synchronized (queue) {
            queue.addLast(write);
        }
        dispatch();
        return write.answer();
    }

    /**
     * Queues several writes at once and dispatches once, so that a slot free now takes them
     * together (up to maxBatch, one a key) rather than the first alone; stages in {@code ops}' order.
     */
    public List<CompletionStage<WriteResult>> submitAll(List<GuardedOp> ops) {
        List<CompletionStage<WriteResult>> answers = new ArrayList<>(ops.size());
        synchronized (queue) {
            for (GuardedOp op : ops) {
                Write write = new Write(op.key(), op.token(), op.value(), new CompletableFuture<>());
                queue.addLast(write);
                answers.add(write.answer());
            }
        }
        dispatch();
        return answers;
    }

    /** Starts batches while a slot is free and writes are queued. */
    private void dispatch() {
        while (true) {
            List<Write> batch;
            synchronized (queue) {
                if (running >= slots || queue.isEmpty()) {
                    return;
                }
                batch = take();
                running++;
            }
            start(batch);
        }
    }

    /**
     * The oldest queued writes, up to maxBatch and maxBatchBytes (the first always goes), at most
     * one a key; the rest keep their order.
     */
    private List<Write> take() {
        if (queue.size() == 1) {
            return List.of(queue.removeFirst());
        }
        List<Write> batch = new ArrayList<>(Math.min(maxBatch, queue.size()));
        Set<String> keys = new HashSet<>();
        long bytes = 0;
        for (Iterator<Write> it = queue.iterator(); it.hasNext() && batch.size() < maxBatch; ) {
            Write write = it.next();
            long size = bytes(write);
            if (!batch.isEmpty() && bytes + size > maxBatchBytes) {
                break;
            }
            if (keys.add(write.key())) {
                batch.add(write);
                bytes += size;
                it.remove();
            }
        }
        batch.sort(BY_KEY);
        return batch;
    }

    private static long bytes(Write write) {
        return (write.value() == null ? 0 : write.value().length) + 3L * write.key().length();
    }

    /** Test hook: {@code observer} sees every batch just before its runner does. */
    public void observe(Consumer<List<Write>> observer) {
        this.observer = observer;
    }

    private void start(List<Write> batch) {
        Consumer<List<Write>> watching = observer;
        if (watching != null) {
            watching.accept(batch);
        }
        CompletionStage<?> ran;
        try {
            ran = runner.run(batch);
        } catch (RuntimeException e) {
            ran = CompletableFuture.failedFuture(e);
        }
        ran.whenComplete((ignored, failure) -> {
            // A runner that failed as a whole, or forgot a write, fails what it left unanswered.
            for (Write write : batch) {
                if (!write.answer().isDone()) {
                    write.settle(null, failure != null ? failure
                            : new IllegalStateException("batch ended without an answer for " + write.key()));
                }
            }
            synchronized (queue) {
                running--;
            }
            dispatch();
        });
    }

    private static Throwable unwrapped(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
