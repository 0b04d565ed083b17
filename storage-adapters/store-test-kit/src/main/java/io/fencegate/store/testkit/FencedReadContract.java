package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.WriteResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The store contract, fenced reads: the fence a read raises, and the lost update it prevents. */
public abstract class FencedReadContract extends GuardContract {
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
}
