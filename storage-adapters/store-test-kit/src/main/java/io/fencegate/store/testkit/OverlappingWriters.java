package io.fencegate.store.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many writes in flight at once on a few keys, with random tokens, for a bounded time and count;
 * then every key's answers are checked against one serial history ({@link History}): the applied
 * writes, by token, form a chain of previous tokens with no token applied twice, every stale
 * answer names a token that applied, and the row ends at the highest token with its value. This
 * is what a store that coalesces writes into batches must still answer, write by write.
 */
public final class OverlappingWriters {

    private OverlappingWriters() {}

    /**
     * Keeps {@code inFlight} writes going on {@code keys} for {@code duration} (at most
     * {@code maxWrites}) through a {@link GuardRule#STRICT} {@code store}, checks the histories
     * and answers how many writes there were.
     */
    public static int runAndCheck(GuardedStore store, List<String> keys, int inFlight, Duration duration, int maxWrites)
            throws Exception {
        assertThat(store.rule()).isEqualTo(GuardRule.STRICT);
        ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
        AtomicInteger started = new AtomicInteger();
        long deadline = System.nanoTime() + duration.toNanos();
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int i = 0; i < inFlight; i++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            chains.add(done);
            next(store, keys, outcomes, started, deadline, maxWrites, done);
        }
        CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new))
                .get(duration.toSeconds() + 60, TimeUnit.SECONDS);
        for (String k : keys) {
            List<Outcome> mine = outcomes.stream().filter(o -> o.key().equals(k)).toList();
            if (!mine.isEmpty()) {
                long max = mine.stream().mapToLong(Outcome::token).max().orElseThrow();
                History.of(mine).assertSerialAndEndsAtMax(store, k, max);
            }
        }
        return outcomes.size();
    }

    /** One write of a chain; when it is answered the chain goes on, until time or count run out. */
    private static void next(GuardedStore store, List<String> keys, ConcurrentLinkedQueue<Outcome> outcomes,
            AtomicInteger started, long deadline, int maxWrites, CompletableFuture<Void> done) {
        int n = started.getAndIncrement();
        if (n >= maxWrites || System.nanoTime() > deadline) {
            done.complete(null);
            return;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String k = keys.get(random.nextInt(keys.size()));
        // Tokens drift upwards with a spread: many writes apply, many are stale, some collide.
        long t = 1 + n / 4 + random.nextInt(64);
        store.write(k, t, AbstractGuardedStoreContractTest.valueFor(t)).whenComplete((result, failure) -> {
            if (failure != null) {
                done.completeExceptionally(failure);
                return;
            }
            outcomes.add(new Outcome(k, t, result));
            next(store, keys, outcomes, started, deadline, maxWrites, done);
        });
    }
}
