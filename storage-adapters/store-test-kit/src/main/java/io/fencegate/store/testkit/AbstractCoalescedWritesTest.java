package io.fencegate.store.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.GuardedStore;
import io.fencegate.store.backend.WriteCoalescer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a store that coalesces the writes in flight ({@link WriteCoalescer}) must keep: each write
 * gets its own answer, consistent with one serial history per key, and two writes to one key
 * never share a batch. A backend's test extends this against its real server.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractCoalescedWritesTest {

    /** A {@code strict} store with {@code connections} connections on the suite's backend; closed by the test. */
    protected abstract GuardedStore coalescingStore(int connections) throws Exception;

    /** The coalescer {@code store}'s writes go through. */
    protected abstract WriteCoalescer writesOf(GuardedStore store);

    /** A fresh key prefix, so tests never share items. */
    protected static String prefix() {
        return "c-" + UUID.randomUUID().toString().substring(0, 8) + "/";
    }

    /** Records the keys of every batch {@code store} runs from now on. */
    protected final List<List<String>> recordBatches(GuardedStore store) {
        List<List<String>> batches = new CopyOnWriteArrayList<>();
        writesOf(store).observe(batch -> batches.add(batch.stream().map(WriteCoalescer.Write::key).toList()));
        return batches;
    }

    @Test
    void overlappingWritersWithRandomTokensGetAnswersOfOneSerialHistory() throws Exception {
        try (GuardedStore store = coalescingStore(4)) {
            List<List<String>> batches = recordBatches(store);
            String p = prefix();
            List<String> keys = IntStream.range(0, 12).mapToObj(i -> p + i).toList();
            int writes = OverlappingWriters.runAndCheck(store, keys, 64, Duration.ofSeconds(4), 40_000);
            assertThat(writes).isGreaterThan(300);
            assertThat(batches).as("writes were coalesced").anySatisfy(b -> assertThat(b).hasSizeGreaterThan(1));
        }
    }

    @Test
    void twoWritesToOneKeyNeverShareABatch() throws Exception {
        try (GuardedStore store = coalescingStore(2)) {
            List<List<String>> batches = recordBatches(store);
            String p = prefix();
            // Three keys, 64 in flight: nearly every batch could take a key twice.
            OverlappingWriters.runAndCheck(store, List.of(p + "a", p + "b", p + "c"), 64, Duration.ofSeconds(2), 5_000);
            assertThat(batches).as("writes were coalesced").anySatisfy(b -> assertThat(b).hasSizeGreaterThan(1));
            assertThat(batches).allSatisfy(b -> assertThat(new HashSet<>(b)).as("keys of a batch: %s", b).hasSameSizeAs(b));
        }
    }
}
