package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Claimed;
import io.fencegate.store.ClaimResult;
import io.fencegate.store.Committed;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Refused;
import io.fencegate.store.Stale;
import io.fencegate.store.TransactionResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The store contract, transactions across items ({@link GuardedStore#transact}) and fenced
 * multi-reads ({@link GuardedStore#fencedReadAll}): all or nothing, every refused item named with
 * its token and fence, tombstones, fences raised together, crossing key orders that never
 * deadlock, and bad input refused. A store that does not {@link GuardedStore#transacts() transact}
 * (the files store) must refuse both with its reason, which every test here then checks instead.
 */
public abstract class TransactionContract extends ClaimContract {

    /**
     * Whether this backend's store transacts across items. Only a store that cannot by design (the
     * files store) overrides it; a store that should and says it does not fails every test here
     * instead of skipping them.
     */
    protected boolean transactsByDesign() {
        return true;
    }

    /**
     * A store with {@code rule} that transacts; null for one that does not by design, once it has
     * refused a transaction and a multi-read with its reason, so each test proves that refusal there
     * instead of being skipped.
     */
    private GuardedStore transacting(GuardRule rule) throws Exception {
        GuardedStore store = store(rule);
        assertThat(store.transacts()).as("transacts across items").isEqualTo(transactsByDesign());
        if (store.transacts()) {
            return store;
        }
        String k = key("refused");
        assertThat(failureOf(() -> store.transact(List.of(GuardedOp.put(k, 5, bytes("v"))))))
                .isInstanceOf(UnsupportedOperationException.class).hasMessage(store.transactionsUnsupportedReason());
        assertThat(failureOf(() -> store.fencedReadAll(List.of(new ItemClaim(k, 5)))))
                .isInstanceOf(UnsupportedOperationException.class);
        return null;
    }

    @Test
    void aStoreWithoutTransactionsRefusesThemWithItsReasonAndChangesNothing() throws Exception {
        GuardedStore store = store(GuardRule.STRICT);
        assertThat(store.transacts()).as("transacts across items").isEqualTo(transactsByDesign());
        if (store.transacts()) {
            return; // the other tests here hold it to its transactions
        }
        String k = key("no-tx");
        Throwable t = failureOf(() -> store.transact(List.of(GuardedOp.put(k, 5, bytes("v")))));
        assertThat(t).isInstanceOf(UnsupportedOperationException.class);
        assertThat(t.getMessage()).isEqualTo(store.transactionsUnsupportedReason()).isNotBlank();
        assertThat(failureOf(() -> store.fencedReadAll(List.of(new ItemClaim(k, 5)))))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(await(store.read(k))).isEqualTo(new Missing(0, 0));
    }

    @Test
    void oneRefusedItemAppliesNothingAndAHigherTokenAppliesEverything() throws Exception {
        GuardedStore store = transacting(GuardRule.STRICT);
        if (store == null) {
            return; // refused by design, as transacting() checked
        }
        String a = key("a"), b = key("b"), c = key("c");
        await(store.write(a, 5, bytes("a5")));
        await(store.write(b, 10, bytes("b10")));
        TransactionResult refused = await(store.transact(List.of(
                GuardedOp.put(a, 7, bytes("a7")), GuardedOp.put(b, 7, bytes("b7")), GuardedOp.delete(c, 7))));
        assertThat(refused).isEqualTo(new Refused(List.of(new Refused.Item(b, new Stale(10, 10, 7)))));
        assertFound(await(store.read(a)), "a5", 5, 5);
        assertFound(await(store.read(b)), "b10", 10, 10);
        // Not even an empty row or a fence was left for the item that would have passed.
        assertThat(await(store.read(c))).isEqualTo(new Missing(0, 0));
        assertThat(await(store.write(c, 6, bytes("c6")))).isEqualTo(new Applied(0));

        TransactionResult committed = await(store.transact(List.of(
                GuardedOp.put(a, 11, bytes("a11")), GuardedOp.put(b, 11, bytes("b11")), GuardedOp.delete(c, 11))));
        assertThat(committed).isEqualTo(new Committed(List.of(new Applied(5), new Applied(10), new Applied(6))));
        assertFound(await(store.read(a)), "a11", 11, 11);
        assertFound(await(store.read(b)), "b11", 11, 11);
        assertThat(await(store.read(c))).isEqualTo(new Missing(11, 11));
    }

    @Test
    void theRefusalNamesEveryRefusedItemWithItsCurrentTokenAndFenceInOperationOrder() throws Exception {
        GuardedStore store = transacting(GuardRule.STRICT);
        if (store == null) {
            return; // refused by design, as transacting() checked
        }
        String written = key("written"), fenced = key("fenced"), free = key("free"), retried = key("retried");
        await(store.write(written, 20, bytes("w")));
        await(store.fencedRead(fenced, 15));
        await(store.write(retried, 12, bytes("r")));
        // Each item carries its own token: the items are guarded by different locks.
        TransactionResult result = await(store.transact(List.of(
                GuardedOp.put(free, 3, bytes("f")),
                GuardedOp.put(written, 19, bytes("w19")),
                GuardedOp.put(fenced, 14, bytes("x")),
                GuardedOp.delete(retried, 12))));
        assertThat(result).isEqualTo(new Refused(List.of(
                new Refused.Item(written, new Stale(20, 20, 19)),
                new Refused.Item(fenced, new Stale(0, 15, 14)),
                new Refused.Item(retried, new Stale(12, 12, 12)))));
        // Under strict, an item refused at its own token had applied: a retry is recognisable.
        assertThat(((Refused) result).items().get(2).stale().alreadyApplied()).isTrue();
        assertThat(await(store.read(free))).isEqualTo(new Missing(0, 0));
        assertThat(await(store.read(fenced))).isEqualTo(new Missing(0, 15));
        assertFound(await(store.read(retried)), "r", 12, 12);
    }

    @Test
    void aFencedMultiReadClaimsEveryItemAndRefusesALowerTokenTransaction() throws Exception {
        GuardedStore store = transacting(GuardRule.STRICT);
        if (store == null) {
            return; // refused by design, as transacting() checked
        }
        String a = key("ra"), b = key("rb"), missing = key("rmissing");
        await(store.write(a, 3, bytes("a3")));
        await(store.write(b, 4, bytes("b4")));
        ClaimResult claimed = await(store.fencedReadAll(List.of(
                new ItemClaim(a, 8), new ItemClaim(b, 9), new ItemClaim(missing, 8))));
        assertThat(claimed).isInstanceOf(Claimed.class);
        List<ReadResult> items = ((Claimed) claimed).items();
        assertFound(items.get(0), "a3", 3, 8);
        assertFound(items.get(1), "b4", 4, 9);
        assertThat(items.get(2)).isEqualTo(new Missing(0, 8));
        // The fences stand: a lower token's transaction (and single write) is refused, item by item.
        assertThat(await(store.transact(List.of(GuardedOp.put(a, 7, bytes("x")), GuardedOp.put(missing, 7, bytes("x"))))))
                .isEqualTo(new Refused(List.of(new Refused.Item(a, new Stale(3, 8, 7)),
                        new Refused.Item(missing, new Stale(0, 8, 7)))));
        assertThat(await(store.write(missing, 7, bytes("x")))).isEqualTo(new Stale(0, 8, 7));
        assertThat(await(store.transact(List.of(GuardedOp.put(a, 8, bytes("a8")), GuardedOp.put(b, 9, bytes("b9")),
                GuardedOp.put(missing, 8, bytes("m8"))))))
                .isEqualTo(new Committed(List.of(new Applied(3), new Applied(4), new Applied(0))));
        assertFound(await(store.read(missing)), "m8", 8, 8);
    }

    @Test
    void aFencedMultiReadWithOneStaleItemRaisesNoFence() throws Exception {
        GuardedStore store = transacting(GuardRule.STRICT);
        if (store == null) {
            return; // refused by design, as transacting() checked
        }
        String a = key("sa"), b = key("sb");
        await(store.write(a, 10, bytes("a10")));
        await(store.write(b, 2, bytes("b2")));
        assertThat(await(store.fencedReadAll(List.of(new ItemClaim(b, 9), new ItemClaim(a, 9)))))
                .isEqualTo(new Refused(List.of(new Refused.Item(a, new Stale(10, 10, 9)))));
        assertFound(await(store.read(b)), "b2", 2, 2);
        assertThat(await(store.fencedReadAll(List.of(new ItemClaim(key("sc"), 9), new ItemClaim(a, 9)))))
                .isInstanceOf(Refused.class);
        assertThat(await(store.read(key("sc")))).isEqualTo(new Missing(0, 0));
        assertThat(await(store.write(b, 3, bytes("b3")))).isEqualTo(new Applied(2));
    }

    @Test
    void aDeleteInATransactionLeavesATombstoneThatALowerTokenCannotResurrect() throws Exception {
        GuardedStore store = transacting(GuardRule.STRICT);
        if (store == null) {
            return; // refused by design, as transacting() checked
        }
        String a = key("ta"), b = key("tb");
        await(store.write(a, 5, bytes("a5")));
        assertThat(await(store.transact(List.of(GuardedOp.delete(a, 6), GuardedOp.put(b, 6, bytes("b6"))))))
                .isEqualTo(new Committed(List.of(new Applied(5), new Applied(0))));
        assertThat(await(store.read(a))).isEqualTo(new Missing(6, 6));
        assertThat(await(store.transact(List.of(GuardedOp.put(a, 5, bytes("back")), GuardedOp.put(b, 7, bytes("b7"))))))
                .isEqualTo(new Refused(List.of(new Refused.Item(a, new Stale(6, 6, 5)))));
        assertThat(await(store.read(a))).isEqualTo(new Missing(6, 6));
        assertFound(await(store.read(b)), "b6", 6, 6);
    }

    @Test
    void underSameLeaseATokenMayTransactOnItsItemsAgain() throws Exception {
        GuardedStore store = transacting(GuardRule.SAME_LEASE);
        if (store == null) {
            return; // refused by design, as transacting() checked
        }
        String a = key("la"), b = key("lb");
        List<GuardedOp> ops = List.of(GuardedOp.put(a, 4, bytes("one")), GuardedOp.put(b, 4, bytes("one")));
        assertThat(await(store.transact(ops))).isEqualTo(new Committed(List.of(new Applied(0), new Applied(0))));
        assertThat(await(store.transact(List.of(GuardedOp.put(a, 4, bytes("two")), GuardedOp.delete(b, 4)))))
                .isEqualTo(new Committed(List.of(new Applied(4), new Applied(4))));
        assertFound(await(store.read(a)), "two", 4, 4);
        assertThat(await(store.read(b))).isEqualTo(new Missing(4, 4));
        assertThat(await(store.transact(List.of(GuardedOp.put(a, 3, bytes("old"))))))
                .isEqualTo(new Refused(List.of(new Refused.Item(a, new Stale(4, 4, 3)))));
    }

    @Test
    void badTransactionsAreRefusedAndChangeNothing() throws Exception {
        GuardedStore store = transacting(GuardRule.STRICT);
        if (store == null) {
            return; // refused by design, as transacting() checked
        }
        String a = key("da"), b = key("db");
        assertThat(failureOf(() -> store.transact(List.of(GuardedOp.put(a, 5, bytes("x")), GuardedOp.delete(a, 6)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThat(failureOf(() -> store.fencedReadAll(List.of(new ItemClaim(a, 5), new ItemClaim(a, 5)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThat(failureOf(() -> store.transact(List.of()))).isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> store.transact(List.of(GuardedOp.put(b, 5, bytes("x")), GuardedOp.put(a, 0, bytes("x"))))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> store.transact(List.of(GuardedOp.put(b, 5, bytes("x")), GuardedOp.put(a + "/../x", 5, bytes("x"))))))
                .isInstanceOf(IllegalArgumentException.class);
        List<GuardedOp> tooMany = new ArrayList<>();
        for (int i = 0; i <= GuardedOp.MAX_ITEMS; i++) {
            tooMany.add(GuardedOp.delete(key("many-" + i), 5));
        }
        assertThat(failureOf(() -> store.transact(tooMany))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(GuardedOp.MAX_ITEMS));
        assertThat(await(store.read(a))).isEqualTo(new Missing(0, 0));
        assertThat(await(store.read(b))).isEqualTo(new Missing(0, 0));
    }

    @Test
    void valuesOverTheLimitTogetherAreRefused() throws Exception {
        GuardedStore store = transacting(GuardRule.STRICT);
        if (store == null) {
            return; // refused by design, as transacting() checked
        }
        int half = store.limits().maxValueBytes() / 2 + 1;
        assertThat(failureOf(() -> store.transact(List.of(GuardedOp.put(key("big-a"), 5, new byte[half]),
                GuardedOp.put(key("big-b"), 5, new byte[half])))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("together");
        assertThat(await(store.read(key("big-a")))).isEqualTo(new Missing(0, 0));
    }

    /**
     * Transactions over the same items in crossing orders (forward, backward), on two independent
     * stores at once: each locks in one canonical order, so none waits for another that waits for
     * it. Every one must answer Committed or Refused (a database that broke a deadlock would fail
     * one), and since each writes all items with one token, all or nothing leaves every item with
     * the same token and value.
     */
    @Test
    void transactionsInCrossingKeyOrdersNeverDeadlockAndStayAllOrNothing() throws Exception {
        GuardedStore one = transacting(GuardRule.STRICT);
        if (one == null) {
            return; // refused by design, as transacting() checked
        }
        GuardedStore two = closeAfter(newIndependentStore(GuardRule.STRICT));
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            keys.add(key("cross-" + i));
        }
        keys.add(key("cross-\u00e9"));     // two bytes in UTF-8
        keys.add(key("cross-\ud83d\ude00")); // four bytes: after U+FFFF in byte order, not in UTF-16 order
        AtomicLong tokens = new AtomicLong(100);
        List<TransactionResult> results = race(8, 80, i -> () -> {
            long token = tokens.incrementAndGet();
            List<String> order = new ArrayList<>(keys);
            if (i % 2 == 1) {
                Collections.reverse(order);
            }
            List<GuardedOp> ops = order.stream().map(k -> GuardedOp.put(k, token, valueFor(token))).toList();
            return await((i % 4 < 2 ? one : two).transact(ops));
        });
        assertThat(results).hasSize(80).allSatisfy(r -> assertThat(r).isInstanceOfAny(Committed.class, Refused.class));
        assertThat(results).anySatisfy(r -> assertThat(r).isInstanceOf(Committed.class));
        long last = ((Found) await(one.read(keys.get(0)))).token();
        for (String k : keys) {
            assertFound(await(two.read(k)), "written-with-" + last, last, last);
        }
    }
}
