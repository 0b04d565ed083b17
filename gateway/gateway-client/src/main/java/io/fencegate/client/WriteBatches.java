package io.fencegate.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * The client's batching of writes in flight ({@link FencegateClient.Builder#batchWrites}), one lane
 * a store. A write finds its store's lane idle: it goes at once, alone (a plain PUT or DELETE, no
 * added latency). A write that finds a batch on the wire waits in the lane's queue; when that
 * batch's answer is in (and its callers' futures completed, so a caller's next write joins the
 * queue first), what is queued goes as the next batch, up to {@code maxBatch} writes and about
 * {@code maxBatchBytes} of body. So batches grow only when writes arrive faster than the gateway
 * answers, with no timer. At most one exchange a lane is on the wire.
 *
 * <p>Bounded: a write that finds {@code maxQueued} writes waiting is refused at once with a
 * {@link RejectedExecutionException}, nothing sent. How a batch goes and how its answer becomes each
 * write's result is the {@link Wire}'s business.
 */
final class WriteBatches {

    /** One queued write ({@code value} null: a delete); the wire completes {@code answer}. */
    record Write(String key, long token, byte[] value, CompletableFuture<WriteOutcome> answer) {
        /** About what the write adds to a batch's JSON body: its value in base64, its key escaped at worst. */
        long bytes() {
            return (value == null ? 0 : (value.length + 2L) / 3 * 4) + 6L * key.length() + 64;
        }
    }

    /** Sends one batch of one store; the stage ends when every write of it is answered. */
    @FunctionalInterface
    interface Wire {
        CompletableFuture<?> send(String store, List<Write> batch);
    }

    private final int maxBatch;
    private final long maxBatchBytes;
    private final int maxQueued;
    private final Wire wire;
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

    WriteBatches(int maxBatch, long maxBatchBytes, int maxQueued, Wire wire) {
        this.maxBatch = maxBatch;
        this.maxBatchBytes = maxBatchBytes;
        this.maxQueued = maxQueued;
        this.wire = wire;
    }

    private static final class Lane {
        final String store;
        final ArrayDeque<Write> queue = new ArrayDeque<>();
        boolean onWire;

        Lane(String store) {
            this.store = store;
        }
    }

    CompletableFuture<WriteOutcome> submit(String store, String key, long token, byte[] value) {
        Lane lane = lanes.computeIfAbsent(store, Lane::new);
        Write write = new Write(key, token, value, new CompletableFuture<>());
        List<Write> batch = null;
        synchronized (lane) {
            if (lane.queue.size() >= maxQueued) {
                return CompletableFuture.failedFuture(new RejectedExecutionException(
                        maxQueued + " writes to store '" + store + "' already wait for the batch on the wire; nothing was sent"));
            }
            lane.queue.addLast(write);
            if (!lane.onWire) {
                lane.onWire = true;
                batch = take(lane);
            }
        }
        if (batch != null) {
            send(lane, batch);
        }
        return write.answer();
    }

    /** The oldest queued writes, up to maxBatch and maxBatchBytes (the first always goes). */
    private List<Write> take(Lane lane) {
        List<Write> batch = new ArrayList<>(Math.min(maxBatch, lane.queue.size()));
        long bytes = 0;
        while (!lane.queue.isEmpty() && batch.size() < maxBatch) {
            long size = lane.queue.peekFirst().bytes();
            if (!batch.isEmpty() && bytes + size > maxBatchBytes) {
                break;
            }
            batch.add(lane.queue.removeFirst());
            bytes += size;
        }
        return batch;
    }

    private void send(Lane lane, List<Write> batch) {
        CompletableFuture<?> sent;
        try {
            sent = wire.send(lane.store, batch);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((ignored, failure) -> {
            // A wire that failed as a whole, or forgot a write, fails what it left unanswered.
            for (Write w : batch) {
                if (!w.answer().isDone()) {
                    w.answer().completeExceptionally(failure != null ? failure
                            : new IllegalStateException("the batch ended without an answer for " + w.key()));
                }
            }
            List<Write> next;
            synchronized (lane) {
                next = lane.queue.isEmpty() ? null : take(lane);
                if (next == null) {
                    lane.onWire = false;
                }
            }
            if (next != null) {
                send(lane, next);
            }
        });
    }
}
