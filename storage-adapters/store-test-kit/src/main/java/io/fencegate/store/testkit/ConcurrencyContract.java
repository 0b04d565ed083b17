package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store contract, concurrency: racing writers on one store and on two independent stores, each
 * history serial; and the counter whose workers take real leases and pause past their ttl.
 */
public abstract class ConcurrencyContract extends FencedReadContract {
    // ---------------------------------------------------------------- races

    @Test
    void concurrentFirstWritersWithDistinctTokensEndAtTheMaxInASerialOrder() throws Exception {
        for (GuardRule rule : GuardRule.values()) {
            GuardedStore store = store(rule);
            int writers = 8;
            for (int r = 0; r < 3; r++) {
                String k = key("first-race-" + rule + "-" + r);
                List<Long> tokens = new ArrayList<>();
                for (long t = 1; t <= writers; t++) {
                    tokens.add(t * 10 + r);
                }
                Collections.shuffle(tokens);
                List<Outcome> outcomes = race(tokens.size(), i -> () -> {
                    long t = tokens.get(i);
                    return new Outcome(k, t, await(store.write(k, t, valueFor(t))));
                });
                History.of(outcomes).assertSerialAndEndsAtMax(store, k, writers * 10L + r);
            }
        }
    }

    @Test
    void concurrentFirstWritersWithEqualTokensUnderStrictApplyExactlyOnce() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        for (int r = 0; r < 3; r++) {
            String k = key("equal-race-" + r);
            long t = 42 + r;
            List<Outcome> outcomes = race(8, i -> () -> new Outcome(k, t, await(store.write(k, t, valueFor(t)))));
            assertThat(outcomes).filteredOn(o -> o.result() instanceof Applied).hasSize(1);
            assertThat(outcomes).filteredOn(o -> o.result() instanceof Applied)
                    .allSatisfy(o -> assertThat(o.result()).isEqualTo(new Applied(0)));
            assertThat(outcomes).filteredOn(o -> o.result() instanceof Stale)
                    .hasSize(7)
                    .allSatisfy(o -> assertThat(((Stale) o.result()).alreadyApplied()).isTrue());
            assertFound(await(store.read(k)), new String(valueFor(t), StandardCharsets.UTF_8), t, t);
        }
    }

    @Test
    void concurrentEqualTokensUnderSameLeaseAllApply() throws Exception {
        GuardedStore store = store(GuardRule.SAME_LEASE);
        String k = key("equal-same-lease");
        List<Outcome> outcomes = race(8, i -> () -> new Outcome(k, 9, await(store.write(k, 9, valueFor(9)))));
        assertThat(outcomes).allSatisfy(o -> assertThat(o.result()).isInstanceOf(Applied.class));
        assertThat(outcomes).filteredOn(o -> o.result().equals(new Applied(0))).hasSize(1);
        assertFound(await(store.read(k)), new String(valueFor(9), StandardCharsets.UTF_8), 9, 9);
    }

    @Test
    void randomTokensNeverLetALowerTokenOverwriteAHigherOne() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        hammer(List.of(store, store), "random");
    }

    @Test
    void twoIndependentStoresOnOneBackendShareTheGuard() throws Exception {
        GuardedStore one = store(GuardRule.STRICT);
        GuardedStore two = closeAfter(newIndependentStore(GuardRule.STRICT));
        hammer(List.of(one, two), "two-stores");
        String k = key("two-stores-direct");
        assertThat(await(one.write(k, 5, bytes("one")))).isEqualTo(new Applied(0));
        assertThat(await(two.write(k, 4, bytes("two")))).isEqualTo(new Stale(5, 5, 4));
        assertThat(await(two.fencedRead(k, 6))).isInstanceOf(Found.class);
        assertThat(await(one.write(k, 5, bytes("late")))).isEqualTo(new Stale(5, 6, 5));
        assertFound(await(one.read(k)), "one", 5, 6);
    }

    /** Writers with random tokens on a few keys, spread over {@code stores}; then the history is checked. */
    private void hammer(List<GuardedStore> stores, String name) throws Exception {
        int keys = 3;
        int threads = 8;
        int writesEach = 30;
        List<Outcome> outcomes = race(threads, threads * writesEach, n -> () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            String k = key(name + "-" + random.nextInt(keys));
            long t = 1 + random.nextInt(500);
            GuardedStore store = stores.get(n % stores.size());
            return new Outcome(k, t, await(store.write(k, t, valueFor(t))));
        });
        for (int r = 0; r < keys; r++) {
            String k = key(name + "-" + r);
            List<Outcome> mine = outcomes.stream().filter(o -> o.key().equals(k)).toList();
            if (mine.isEmpty()) {
                continue;
            }
            long max = mine.stream().mapToLong(Outcome::token).max().orElseThrow();
            History.of(mine).assertSerialAndEndsAtMax(stores.get(0), k, max);
        }
    }

    // ---------------------------------------------------------------- the counter, with a real issuer

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void counterWithFencedReadModifyWriteEqualsTheAcknowledgedWrites() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        LeaseIssuer issuer = newLeaseIssuer();
        String k = key("counter");
        String lock = "fencegate-contract/" + k;
        Duration ttl = Duration.ofMillis(300);
        AtomicInteger acknowledged = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        int workers = 8;
        int roundsEach = 6;
        race(workers, w -> () -> {
            Random random = new Random(w);
            for (int round = 0; round < roundsEach; round++) {
                Optional<Lease> lease = await(issuer.acquire(lock, ttl, Duration.ofSeconds(20)));
                if (lease.isEmpty()) {
                    continue;
                }
                long token = lease.get().token();
                try {
                    ReadResult read = await(store.fencedRead(k, token));
                    if (read instanceof Stale) {
                        refused.incrementAndGet();
                        continue;
                    }
                    int current = read instanceof Found found ? stock(found) : 0;
                    // Sometimes pause past the ttl, as a GC pause would: another worker gets the
                    // lock meanwhile, and its fenced read must fence this write out.
                    Thread.sleep(random.nextInt(5) == 0 ? ttl.toMillis() + 150 : random.nextInt(15));
                    WriteResult written = await(store.write(k, token, bytes(String.valueOf(current + 1))));
                    if (written instanceof Applied) {
                        acknowledged.incrementAndGet();
                    } else {
                        refused.incrementAndGet();
                    }
                } finally {
                    await(issuer.release(lease.get().leaseId()));
                }
            }
            return null;
        });
        ReadResult end = await(store.read(k));
        assertThat(acknowledged.get()).isPositive();
        assertThat(stock(end)).as("final counter vs %d acknowledged, %d refused", acknowledged.get(), refused.get())
                .isEqualTo(acknowledged.get());
    }
}
