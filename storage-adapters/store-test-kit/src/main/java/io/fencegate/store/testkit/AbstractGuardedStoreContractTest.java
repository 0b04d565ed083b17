package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.StoreUnavailableException;
import io.fencegate.store.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every {@link GuardedStore} passes against its real backend (DESIGN.md, "Guarded
 * writes and fenced reads"). A backend's test extends this class and supplies stores on an
 * isolated namespace (its own database, schema or directory, created and dropped by the
 * subclass); every test uses keys under its own random prefix, so stores may share data.
 *
 * <p>Adapters that add tests of their own write them in the subclass; adapters that are not
 * behind TCP say in {@link #outageHarness()} how their backend is taken away.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractGuardedStoreContractTest {

    /** A store with {@code rule} on the suite's backend and namespace. Closed by the suite. */
    protected abstract GuardedStore newStore(GuardRule rule) throws Exception;

    /**
     * A second, independent store on the same data: its own pool / connections / process-level
     * state, as another gateway or application instance would have. Closed by the suite.
     */
    protected abstract GuardedStore newIndependentStore(GuardRule rule) throws Exception;

    /** How to cut this adapter off its backend: a TCP proxy, or {@link OutageHarness#custom}. */
    protected abstract OutageHarness outageHarness();

    /** The store name {@link #newStore} and {@link #newIndependentStore} open their stores under. */
    protected abstract String storeName();

    /**
     * A store named {@code name} on the suite's backend and namespace: with a name other than
     * {@link #storeName()} the adapter must refuse to open it (the backend belongs to that store).
     */
    protected abstract GuardedStore newStoreNamed(String name, GuardRule rule) throws Exception;

    /** The limits the adapter enforces (the suite probes both sides of them). */
    protected StoreLimits limits() {
        return StoreLimits.DEFAULT;
    }

    /** How long an operation may take to fail once its backend is cut off. */
    protected Duration outageFailureBound() {
        return Duration.ofSeconds(15);
    }

    /**
     * The real issuer the counter test takes leases from, started by the subclass (the kit depends
     * on the issuer API only); register it, and any server it needs, with {@link #closeAfter}.
     */
    protected abstract LeaseIssuer newLeaseIssuer() throws Exception;

    private final String prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + "/";
    private final TestResources resources = new TestResources();

    /** A key under this test's own random prefix. */
    protected String key(String name) {
        return prefix + name;
    }

    protected final <T extends AutoCloseable> T closeAfter(T resource) {
        return resources.add(resource);
    }

    protected final GuardedStore store(GuardRule rule) throws Exception {
        GuardedStore store = newStore(rule);
        assertThat(store.rule()).isEqualTo(rule);
        return closeAfter(store);
    }

    @AfterEach
    void closeResources() throws Exception {
        resources.closeAll();
    }

    // ---------------------------------------------------------------- guard rules, one writer

    @Test
    void firstWriteAppliesWithPreviousTokenZeroAndReadsBack() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("first");
        assertThat(await(store.read(k))).isEqualTo(new Missing(0, 0));
        assertThat(await(store.write(k, 5, bytes("five")))).isEqualTo(new Applied(0));
        assertFound(await(store.read(k)), "five", 5, 5);
        assertThat(await(store.write(k, 9, bytes("nine")))).isEqualTo(new Applied(5));
        assertFound(await(store.read(k)), "nine", 9, 9);
    }

    @Test
    void lowerTokenIsStaleWithCurrentTokenAndFenceAndChangesNothing() throws Exception {
        for (GuardRule rule : GuardRule.values()) {
            GuardedStore store = store(rule);
            String k = key("lower-" + rule);
            await(store.write(k, 10, bytes("ten")));
            Stale stale = (Stale) await(store.write(k, 9, bytes("nine")));
            assertThat(stale).isEqualTo(new Stale(10, 10, 9));
            assertThat(stale.alreadyApplied()).isFalse();
            assertFound(await(store.read(k)), "ten", 10, 10);
        }
    }

    @Test
    void strictRefusesASecondWriteWithTheSameTokenAsAlreadyApplied() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("strict-retry");
        assertThat(await(store.write(k, 7, bytes("a")))).isEqualTo(new Applied(0));
        WriteResult retry = await(store.write(k, 7, bytes("b")));
        assertThat(retry).isEqualTo(new Stale(7, 7, 7));
        assertThat(((Stale) retry).alreadyApplied()).isTrue();
        assertFound(await(store.read(k)), "a", 7, 7);
    }

    @Test
    void sameLeaseLetsOneTokenWriteManyTimesButNotGoBack() throws Exception {
        GuardedStore store = store(GuardRule.SAME_LEASE);
        String k = key("same-lease");
        assertThat(await(store.write(k, 7, bytes("a")))).isEqualTo(new Applied(0));
        assertThat(await(store.write(k, 7, bytes("b")))).isEqualTo(new Applied(7));
        assertThat(await(store.write(k, 8, bytes("c")))).isEqualTo(new Applied(7));
        assertThat(await(store.write(k, 7, bytes("d")))).isEqualTo(new Stale(8, 8, 7));
        assertFound(await(store.read(k)), "c", 8, 8);
    }

    @Test
    void deleteLeavesATombstoneThatBlocksResurrectionByALowerToken() throws Exception {
        for (GuardRule rule : GuardRule.values()) {
            GuardedStore store = store(rule);
            String k = key("tomb-" + rule);
            await(store.write(k, 3, bytes("x")));
            assertThat(await(store.delete(k, 5))).isEqualTo(new Applied(3));
            assertThat(await(store.read(k))).isEqualTo(new Missing(5, 5));
            assertThat(await(store.write(k, 4, bytes("zombie")))).isEqualTo(new Stale(5, 5, 4));
            assertThat(await(store.delete(k, 4))).isEqualTo(new Stale(5, 5, 4));
            assertThat(await(store.read(k))).isEqualTo(new Missing(5, 5));
            assertThat(await(store.write(k, 6, bytes("back")))).isEqualTo(new Applied(5));
            assertFound(await(store.read(k)), "back", 6, 6);
        }
    }

    @Test
    void deleteOfANeverWrittenItemLeavesATombstone() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("tomb-fresh");
        assertThat(await(store.delete(k, 5))).isEqualTo(new Applied(0));
        assertThat(await(store.read(k))).isEqualTo(new Missing(5, 5));
        assertThat(await(store.write(k, 5, bytes("again")))).isEqualTo(new Stale(5, 5, 5));
        assertThat(await(store.write(k, 2, bytes("older")))).isEqualTo(new Stale(5, 5, 2));
    }

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

    /**
     * Rows are keyed by the bare key while locks ({@code store/key}) and API-key scopes are per
     * store: two stores with different names on one database, schema or directory would write
     * each other's items under each other's locks. So a backend belongs to one store name, and
     * another name is refused when it opens, naming both stores; the same name opens again.
     */
    @Test
    void aStoreWithAnotherNameIsRefusedOnAClaimedBackendAndChangesNothing() throws Exception {
        GuardedStore owner = store(GuardRule.STRICT);
        String k = key("claimed");
        assertThat(await(owner.write(k, 5, bytes("owner's")))).isEqualTo(new Applied(0));
        String intruder = "intruder-" + UUID.randomUUID().toString().substring(0, 6);
        GuardedStore other;
        try {
            other = newStoreNamed(intruder, GuardRule.STRICT);
        } catch (RuntimeException refused) {
            assertThat(refused).hasMessageContaining("'" + intruder + "'")
                    .hasMessageContaining("'" + storeName() + "'");
            assertFound(await(owner.read(k)), "owner's", 5, 5);
            // The owner's name still opens (a restart, another gateway of a scale-out).
            GuardedStore again = closeAfter(newStoreNamed(storeName(), GuardRule.STRICT));
            assertFound(await(again.read(k)), "owner's", 5, 5);
            return;
        }
        closeAfter(other);
        WriteResult overwrite = await(other.write(k, 9, bytes("intruder's")));
        throw new AssertionError("store '" + intruder + "' opened on the backend of store '" + storeName()
                + "'; its write of " + k + " answered " + overwrite + " and the owner now reads " + await(owner.read(k)));
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

    // ---------------------------------------------------------------- sizes and keys

    @Test
    void valuesUpToTheLimitRoundTripByteForByte() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        int big = Math.min(limits().maxValueBytes(), 1024 * 1024 + 17);
        byte[] large = new byte[big];
        new Random(7).nextBytes(large);
        byte[] allBytes = new byte[256];
        for (int i = 0; i < 256; i++) {
            allBytes[i] = (byte) i;
        }
        long t = 1;
        for (byte[] value : List.of(new byte[0], allBytes, large)) {
            String k = key("size-" + value.length);
            assertThat(await(store.write(k, t, value))).isEqualTo(new Applied(0));
            Found found = (Found) await(store.read(k));
            assertThat(found.value()).isEqualTo(value);
            assertThat(found.token()).isEqualTo(t);
            t++;
        }
        byte[] atLimit = new byte[limits().maxValueBytes()];
        if (atLimit.length <= 64 * 1024 * 1024) {
            String k = key("at-limit");
            assertThat(await(store.write(k, 1, atLimit))).isEqualTo(new Applied(0));
            assertThat(((Found) await(store.read(k))).value()).hasSize(atLimit.length);
        }
    }

    @Test
    void keysWithUnicodeSlashesAndLengthRoundTripAsDistinctItems() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        int room = limits().maxKeyBytes() - key("").getBytes(StandardCharsets.UTF_8).length;
        String longName = "L".repeat(Math.min(1024, room));
        List<String> keys = List.of(
                key("docs/2026/report.txt"),
                key("ünïcødé/日本語/🔒"),
                key("Stock"),
                key("stock"),
                key("with space and 'quote' and \"dq\" and %20 and ;--"),
                key(longName));
        long t = 1;
        for (String k : keys) {
            assertThat(await(store.write(k, t, bytes(k)))).as(k).isEqualTo(new Applied(0));
            t++;
        }
        t = 1;
        for (String k : keys) {
            assertFound(await(store.read(k)), k, t, t);
            t++;
        }
    }

    @Test
    void badInputIsRefusedWithIllegalArgumentAndChangesNothing() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("guarded");
        await(store.write(k, 5, bytes("kept")));
        String tooLong = key("x".repeat(limits().maxKeyBytes()));
        List<Supplier<? extends java.util.concurrent.CompletionStage<?>>> bad = new ArrayList<>();
        for (long badToken : new long[] {0, -1, Long.MIN_VALUE}) {
            bad.add(() -> store.write(k, badToken, bytes("evil")));
            bad.add(() -> store.delete(k, badToken));
            bad.add(() -> store.fencedRead(k, badToken));
        }
        for (String badKey : Arrays.asList("", null, "..", "a/../b", key("a/.."), key("nul\0byte"), "/abs",
                key("double//slash"), key("./dot"), tooLong)) {
            bad.add(() -> store.write(badKey, 9, bytes("evil")));
            bad.add(() -> store.delete(badKey, 9));
            bad.add(() -> store.read(badKey));
            bad.add(() -> store.fencedRead(badKey, 9));
        }
        bad.add(() -> store.write(k, 9, null));
        bad.add(() -> store.write(k, 9, new byte[limits().maxValueBytes() + 1]));
        for (Supplier<? extends java.util.concurrent.CompletionStage<?>> call : bad) {
            assertThat(failureOf(call)).isInstanceOf(IllegalArgumentException.class);
        }
        assertFound(await(store.read(k)), "kept", 5, 5);
        assertThat(await(store.read(key("double")))).isEqualTo(new Missing(0, 0));
    }

    // ---------------------------------------------------------------- fenced reads

    @Test
    void withPlainReadsTheInterleavingLosesAnUpdate() throws Exception {
        // The control: a guard on writes alone does not protect a read-modify-write.
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("stock-plain");
        await(store.write(k, 4, bytes("1")));
        int seenByA = stock(await(store.read(k)));           // A holds 5, reads, pauses past its ttl
        int seenByB = stock(await(store.read(k)));           // B gets 6, reads
        WriteResult a = await(store.write(k, 5, bytes(String.valueOf(seenByA - 1))));
        WriteResult b = await(store.write(k, 6, bytes(String.valueOf(seenByB - 1))));
        assertThat(a).isEqualTo(new Applied(4));
        assertThat(b).isEqualTo(new Applied(5));
        // Two sales of one item, both acknowledged: the lost update fenced reads exist for.
        assertFound(await(store.read(k)), "0", 6, 6);
    }

    @Test
    void withFencedReadsTheStaleHoldersWriteIsRefused() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("stock-fenced");
        await(store.write(k, 4, bytes("1")));
        ReadResult readByA = await(store.fencedRead(k, 5));
        assertFound(readByA, "1", 4, 5);
        ReadResult readByB = await(store.fencedRead(k, 6));
        assertFound(readByB, "1", 4, 6);
        assertThat(await(store.write(k, 5, bytes("0")))).isEqualTo(new Stale(4, 6, 5));
        assertThat(await(store.write(k, 6, bytes("0")))).isEqualTo(new Applied(4));
        assertFound(await(store.read(k)), "0", 6, 6);
    }

    @Test
    void fencedReadBelowTheFenceIsStaleAndChangesNothing() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("fence-below");
        await(store.write(k, 10, bytes("ten")));
        assertThat(await(store.fencedRead(k, 9))).isEqualTo(new Stale(10, 10, 9));
        assertFound(await(store.read(k)), "ten", 10, 10);
        assertFound(await(store.fencedRead(k, 12)), "ten", 10, 12);
        assertThat(await(store.fencedRead(k, 11))).isEqualTo(new Stale(10, 12, 11));
        assertFound(await(store.read(k)), "ten", 10, 12);
        assertThat(await(store.write(k, 11, bytes("eleven")))).isEqualTo(new Stale(10, 12, 11));
        assertThat(await(store.delete(k, 11))).isEqualTo(new Stale(10, 12, 11));
        assertFound(await(store.read(k)), "ten", 10, 12);
    }

    @Test
    void fencedReadAtTheFenceIsAdmittedAndLeavesItUnchanged() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("fence-equal");
        await(store.write(k, 10, bytes("ten")));
        assertFound(await(store.fencedRead(k, 10)), "ten", 10, 10);
        assertFound(await(store.fencedRead(k, 10)), "ten", 10, 10);
        assertFound(await(store.read(k)), "ten", 10, 10);
    }

    @Test
    void fencedReadOfAMissingItemLeavesAFenceOnlyRowThatBlocksAStaleCreation() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("fence-missing");
        assertThat(await(store.fencedRead(k, 5))).isEqualTo(new Missing(0, 5));
        assertThat(await(store.read(k))).isEqualTo(new Missing(0, 5));
        assertThat(await(store.write(k, 4, bytes("stale")))).isEqualTo(new Stale(0, 5, 4));
        assertThat(await(store.fencedRead(k, 4))).isEqualTo(new Stale(0, 5, 4));
        assertThat(await(store.read(k))).isEqualTo(new Missing(0, 5));
        assertThat(await(store.write(k, 5, bytes("mine")))).isEqualTo(new Applied(0));
        assertFound(await(store.read(k)), "mine", 5, 5);
    }

    @Test
    void fencedReadOfATombstoneReportsItsTokenAndRaisesTheFence() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("fence-tomb");
        await(store.write(k, 2, bytes("x")));
        await(store.delete(k, 3));
        assertThat(await(store.fencedRead(k, 8))).isEqualTo(new Missing(3, 8));
        assertThat(await(store.write(k, 7, bytes("y")))).isEqualTo(new Stale(3, 8, 7));
        assertThat(await(store.write(k, 8, bytes("z")))).isEqualTo(new Applied(3));
    }

    @Test
    void strictReadThenWriteWithOneTokenAppliesOnceAndARetryIsAlreadyApplied() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("fenced-rmw");
        await(store.write(k, 3, bytes("41")));
        int seen = stock(await(store.fencedRead(k, 7)));
        assertThat(await(store.write(k, 7, bytes(String.valueOf(seen + 1))))).isEqualTo(new Applied(3));
        WriteResult retry = await(store.write(k, 7, bytes(String.valueOf(seen + 1))));
        assertThat(retry).isEqualTo(new Stale(7, 7, 7));
        assertThat(((Stale) retry).alreadyApplied()).isTrue();
        assertFound(await(store.read(k)), "42", 7, 7);
    }

    @Test
    void sameLeaseFencedReadThenWritesWithOneTokenAllApply() throws Exception {
        GuardedStore store = store(GuardRule.SAME_LEASE);
        String k = key("fenced-same-lease");
        assertThat(await(store.fencedRead(k, 7))).isEqualTo(new Missing(0, 7));
        assertThat(await(store.write(k, 7, bytes("a")))).isEqualTo(new Applied(0));
        assertFound(await(store.fencedRead(k, 7)), "a", 7, 7);
        assertThat(await(store.write(k, 7, bytes("b")))).isEqualTo(new Applied(7));
        assertThat(await(store.fencedRead(k, 6))).isEqualTo(new Stale(7, 7, 6));
    }

    @Test
    void fencedReadsRacingOnAMissingItemLeaveTheHighestFence() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        String k = key("fence-race");
        List<ReadResult> results = race(8, i -> () -> await(store.fencedRead(k, 100 + i)));
        assertThat(results).allSatisfy(r -> assertThat(r).isInstanceOfAny(Missing.class, Stale.class));
        assertThat(results).contains(new Missing(0, 107));
        assertThat(await(store.read(k))).isEqualTo(new Missing(0, 107));
        assertThat(await(store.write(k, 106, bytes("late")))).isEqualTo(new Stale(0, 107, 106));
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

    // ---------------------------------------------------------------- outage

    @Test
    void backendOutageFailsFastWithStoreUnavailableAndRecoversAfterRestore() throws Exception {
        OutageHarness.Outage outage = closeAfter(outageHarness().open(GuardRule.STRICT));
        GuardedStore cutOff = outage.store();
        GuardedStore direct = outage.witness() != null ? outage.witness() : store(GuardRule.STRICT);
        String k = key("outage");
        long token = 1;
        assertThat(await(cutOff.write(k, token, valueFor(token)))).isEqualTo(new Applied(0));
        List<Long> mayHaveApplied = new ArrayList<>(List.of(token));
        for (int i = 0; i < 5; i++) {
            token++;
            assertThat(await(cutOff.write(k, token, valueFor(token)))).isInstanceOf(Applied.class);
            mayHaveApplied.add(token);
        }
        // A writer keeps going while the link is cut under it.
        ExecutorService background = Executors.newSingleThreadExecutor();
        long cutAtToken = token;
        Future<List<Long>> midRun = background.submit(() -> {
            List<Long> attempted = new ArrayList<>();
            for (long t = cutAtToken + 1; t <= cutAtToken + 200; t++) {
                attempted.add(t);
                try {
                    await(cutOff.write(k, t, valueFor(t)));
                } catch (StoreUnavailableException expected) {
                    break;
                }
            }
            return attempted;
        });
        Thread.sleep(30);
        outage.cut();
        List<Long> attempted = midRun.get(outageFailureBound().toSeconds() * 3, TimeUnit.SECONDS);
        background.shutdownNow();
        mayHaveApplied.addAll(attempted);
        token = attempted.isEmpty() ? token : attempted.get(attempted.size() - 1);

        for (int i = 0; i < 3; i++) {
            long t = ++token;
            mayHaveApplied.add(t);
            long started = System.nanoTime();
            Throwable failure = failureOf(() -> cutOff.write(k, t, valueFor(t)));
            assertThat(failure).isInstanceOf(StoreUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(outageFailureBound());
        }
        long started = System.nanoTime();
        assertThat(failureOf(() -> cutOff.read(k))).isInstanceOf(StoreUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(outageFailureBound());

        // Nothing half-applied: the item's content always belongs to its token.
        Found during = (Found) await(direct.read(k));
        assertThat(during.value()).isEqualTo(valueFor(during.token()));
        assertThat(mayHaveApplied).contains(during.token());

        outage.restore();
        long next = token + 1;
        Awaitility.await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> await(cutOff.write(k, next, valueFor(next))) instanceof Applied
                        || await(cutOff.read(k)) instanceof Found f && f.token() == next);
        assertFound(await(direct.read(k)), new String(valueFor(next), StandardCharsets.UTF_8), next, next);
    }

    // ---------------------------------------------------------------- helpers

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A value that names its token, so a read can check content and token belong together. */
    protected static byte[] valueFor(long token) {
        return bytes("written-with-" + token);
    }

    protected static void assertFound(ReadResult result, String value, long token, long fence) {
        assertThat(result).isInstanceOf(Found.class);
        Found found = (Found) result;
        assertThat(new String(found.value(), StandardCharsets.UTF_8)).isEqualTo(value);
        assertThat(found.token()).as("token").isEqualTo(token);
        assertThat(found.fence()).as("fence").isEqualTo(fence);
    }

    private static int stock(ReadResult result) {
        assertThat(result).isInstanceOf(Found.class);
        return Integer.parseInt(new String(((Found) result).value(), StandardCharsets.UTF_8));
    }

    /** Runs {@code n} tasks at once (released together) and collects their results. */
    protected static <T> List<T> race(int n, java.util.function.IntFunction<Callable<T>> task) throws Exception {
        return race(n, n, task);
    }

    /** {@code threads} threads released together work off {@code tasks} tasks; results in any order. */
    private static <T> List<T> race(int threads, int tasks, java.util.function.IntFunction<Callable<T>> task)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            ConcurrentLinkedQueue<T> results = new ConcurrentLinkedQueue<>();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                Callable<T> c = task.apply(i);
                futures.add(pool.submit(() -> {
                    start.await();
                    T r = c.call();
                    if (r != null) {
                        results.add(r);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(100, TimeUnit.SECONDS);
            }
            return new ArrayList<>(results);
        } finally {
            pool.shutdownNow();
        }
    }
}
