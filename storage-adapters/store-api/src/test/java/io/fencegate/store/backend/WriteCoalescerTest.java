package io.fencegate.store.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.WriteResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The batching rules of {@link WriteCoalescer}, with a runner that holds batches until told. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WriteCoalescerTest {

    /** Records each batch and keeps it running until {@link #finish} answers it (applied, previous 0). */
    private static final class HeldRunner implements WriteCoalescer.Runner {
        final List<List<WriteCoalescer.Write>> batches = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<Void>> running = new CopyOnWriteArrayList<>();

        @Override
        public CompletionStage<?> run(List<WriteCoalescer.Write> batch) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            batches.add(batch);
            running.add(done);
            return done;
        }

        void finish(int i) {
            batches.get(i).forEach(w -> w.answer().complete(new Applied(0)));
            running.get(i).complete(null);
        }
    }

    @Test
    void aLoneWriteLeavesAtOnceAlone() {
        HeldRunner runner = new HeldRunner();
        WriteCoalescer writes = new WriteCoalescer(4, 128, 1 << 20, runner);
        CompletionStage<WriteResult> answer = writes.submit("a", 1, new byte[1]);
        assertThat(runner.batches).hasSize(1);
        assertThat(runner.batches.get(0)).extracting(WriteCoalescer.Write::key).containsExactly("a");
        runner.finish(0);
        assertThat(answer.toCompletableFuture()).isCompletedWithValue(new Applied(0));
    }

    @Test
    void writesSubmittedTogetherLeaveAsOneBatchEvenWithSlotsFree() {
        HeldRunner runner = new HeldRunner();
        WriteCoalescer writes = new WriteCoalescer(4, 128, 1 << 20, runner);
        List<CompletionStage<WriteResult>> answers = writes.submitAll(List.of(
                io.fencegate.store.GuardedOp.put("c", 1, new byte[1]), io.fencegate.store.GuardedOp.delete("a", 2),
                io.fencegate.store.GuardedOp.put("b", 3, new byte[1])));
        // One at a time, the first three would each have taken a free slot alone.
        assertThat(runner.batches).hasSize(1);
        assertThat(runner.batches.get(0)).extracting(WriteCoalescer.Write::key).containsExactly("a", "b", "c");
        runner.finish(0);
        assertThat(answers).allSatisfy(a -> assertThat(a.toCompletableFuture()).isCompletedWithValue(new Applied(0)));
    }

    @Test
    void writesQueuedWhileEverySlotIsBusyLeaveTogetherSortedByKey() {
        HeldRunner runner = new HeldRunner();
        WriteCoalescer writes = new WriteCoalescer(1, 128, 1 << 20, runner);
        writes.submit("first", 1, new byte[1]);
        for (String k : List.of("d", "b", "c", "a")) {
            writes.submit(k, 1, new byte[1]);
        }
        assertThat(runner.batches).hasSize(1);
        runner.finish(0);
        assertThat(runner.batches).hasSize(2);
        assertThat(runner.batches.get(1)).extracting(WriteCoalescer.Write::key).containsExactly("a", "b", "c", "d");
    }

    @Test
    void twoWritesToOneKeyNeverShareABatchAndKeepTheirOrder() {
        HeldRunner runner = new HeldRunner();
        WriteCoalescer writes = new WriteCoalescer(1, 128, 1 << 20, runner);
        writes.submit("hold", 1, new byte[1]);
        int keys = 5;
        int each = 20;
        Map<String, List<Long>> submitted = new ConcurrentHashMap<>();
        for (long t = 1; t <= keys * each; t++) {
            String k = "k" + (t % keys);
            submitted.computeIfAbsent(k, x -> new ArrayList<>()).add(t);
            writes.submit(k, t, new byte[1]);
        }
        for (int i = 0; i < runner.batches.size(); i++) {
            runner.finish(i); // each finish starts the next batch: the list grows as we go
        }
        assertThat(runner.batches).hasSizeGreaterThanOrEqualTo(each + 1);
        Map<String, List<Long>> ran = new ConcurrentHashMap<>();
        for (List<WriteCoalescer.Write> batch : runner.batches) {
            List<String> batchKeys = batch.stream().map(WriteCoalescer.Write::key).toList();
            assertThat(new HashSet<>(batchKeys)).as("keys of batch %s", batchKeys).hasSameSizeAs(batchKeys);
            batch.forEach(w -> ran.computeIfAbsent(w.key(), x -> new ArrayList<>()).add(w.token()));
        }
        submitted.forEach((k, tokens) -> assertThat(ran.get(k)).as("order of %s", k).isEqualTo(tokens));
    }

    @Test
    void batchesAreBoundedInCountAndBytesAndALargeWriteGoesAlone() {
        HeldRunner runner = new HeldRunner();
        WriteCoalescer writes = new WriteCoalescer(1, 3, 100, runner);
        writes.submit("hold", 1, new byte[1]);
        for (int i = 0; i < 5; i++) {
            writes.submit("s" + i, 1, new byte[10]);
        }
        writes.submit("large", 1, new byte[500]);
        writes.submit("t", 1, new byte[10]);
        for (int i = 0; i < runner.batches.size(); i++) {
            runner.finish(i);
        }
        assertThat(runner.batches).extracting(b -> b.stream().map(WriteCoalescer.Write::key).toList())
                .containsExactly(List.of("hold"), List.of("s0", "s1", "s2"), List.of("s3", "s4"), List.of("large"),
                        List.of("t"));
    }

    @Test
    void aFailedBatchFailsEachOfItsWritesAndFreesItsSlot() throws Exception {
        List<List<WriteCoalescer.Write>> batches = new CopyOnWriteArrayList<>();
        IllegalStateException boom = new IllegalStateException("boom");
        WriteCoalescer writes = new WriteCoalescer(1, 128, 1 << 20, batch -> {
            batches.add(batch);
            if (batches.size() == 1) {
                return CompletableFuture.failedFuture(boom);
            }
            batch.forEach(w -> w.answer().complete(new Applied(0)));
            return CompletableFuture.completedFuture(null);
        });
        CompletableFuture<WriteResult> failed = writes.submit("a", 1, new byte[1]).toCompletableFuture();
        assertThat(failed).isCompletedExceptionally();
        try {
            failed.get();
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isSameAs(boom);
        }
        assertThat(writes.submit("b", 1, new byte[1]).toCompletableFuture()).isCompletedWithValue(new Applied(0));
    }
}
