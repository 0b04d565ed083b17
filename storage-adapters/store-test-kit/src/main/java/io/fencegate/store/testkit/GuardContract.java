package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.Stale;
import io.fencegate.store.WriteResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The store contract, guard rules with one writer: tokens, tombstones, sizes, keys and bad input
 * (DESIGN.md, "Guarded writes and fenced reads").
 */
public abstract class GuardContract extends StoreContractSupport {
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
}
