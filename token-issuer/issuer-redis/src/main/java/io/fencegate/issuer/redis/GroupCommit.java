package io.fencegate.issuer.redis;

import io.fencegate.issuer.IssuerUnavailableException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Group commit of one script's calls: a call made while {@value #MAX_IN_FLIGHT} batches are in
 * flight waits, and goes out with every call queued meanwhile (up to {@value #MAX_BATCH}) as one
 * script call that answers each element in order. A lone call goes out at once, so nothing waits
 * for a timer. Why two in flight, not one: a call never waits behind a single slow one (a waiter
 * woken by a release retries at once even while another caller's poll is on its way).
 *
 * <p>Why: under concurrency the issuer was bound by client CPU per command (Lettuce dispatch,
 * Netty writes and flushes, futures) and Redis's per-call cost, not by the work of the scripts.
 * One batch pays those once for all its elements. A failed batch (timeout, lost connection) fails
 * every element; each element's answer is its own, as if it had run alone after the ones before it.
 *
 * @param <E> one call's arguments
 * @param <R> one call's answer
 */
final class GroupCommit<E, R> {

    static final int MAX_BATCH = 64;
    static final int MAX_IN_FLIGHT = 2;

    private record Pending<E, R>(E element, CompletableFuture<R> answer) { }

    /** Sends one batch; answers one reply per element, in order. */
    private final Function<List<E>, CompletionStage<List<R>>> send;
    private final ArrayDeque<Pending<E, R>> queued = new ArrayDeque<>();
    private int inFlight;
    private boolean closed;

    GroupCommit(Function<List<E>, CompletionStage<List<R>>> send) {
        this.send = send;
    }

    CompletionStage<R> submit(E element) {
        Pending<E, R> pending = new Pending<>(element, new CompletableFuture<>());
        List<Pending<E, R>> batch;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new IssuerUnavailableException("Redis lease issuer is closed"));
            }
            queued.add(pending);
            batch = inFlight < MAX_IN_FLIGHT ? takeBatch() : null;
        }
        if (batch != null) {
            sendBatch(batch);
        }
        return pending.answer;
    }

    /** Fails every queued call at once; a batch in flight still answers (or times out). */
    void close() {
        List<Pending<E, R>> dropped;
        synchronized (this) {
            closed = true;
            dropped = new ArrayList<>(queued);
            queued.clear();
        }
        IssuerUnavailableException error = new IssuerUnavailableException("Redis lease issuer closed");
        dropped.forEach(p -> p.answer.completeExceptionally(error));
    }

    /** Under the lock, with something queued: the next batch, now in flight. */
    private List<Pending<E, R>> takeBatch() {
        inFlight++;
        List<Pending<E, R>> batch = new ArrayList<>(Math.min(queued.size(), MAX_BATCH));
        while (!queued.isEmpty() && batch.size() < MAX_BATCH) {
            batch.add(queued.poll());
        }
        return batch;
    }

    private void sendBatch(List<Pending<E, R>> batch) {
        List<E> elements = new ArrayList<>(batch.size());
        batch.forEach(p -> elements.add(p.element));
        CompletionStage<List<R>> replies;
        try {
            replies = send.apply(elements);
        } catch (RuntimeException e) {
            replies = CompletableFuture.failedFuture(e);
        }
        replies.whenComplete((answers, error) -> {
            List<Pending<E, R>> next;
            synchronized (this) {
                inFlight--;
                next = queued.isEmpty() ? null : takeBatch();
            }
            // The next batch goes out before this one's callers run their callbacks.
            if (next != null) {
                sendBatch(next);
            }
            answer(batch, answers, error);
        });
    }

    private void answer(List<Pending<E, R>> batch, List<R> answers, Throwable error) {
        if (error == null && answers.size() != batch.size()) {
            error = new IllegalStateException("a batch of " + batch.size() + " calls got " + answers.size() + " answers");
        }
        for (int i = 0; i < batch.size(); i++) {
            if (error != null) {
                batch.get(i).answer.completeExceptionally(error);
            } else {
                batch.get(i).answer.complete(answers.get(i));
            }
        }
    }
}
