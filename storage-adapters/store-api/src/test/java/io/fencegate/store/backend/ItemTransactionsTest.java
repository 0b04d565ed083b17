package io.fencegate.store.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.store.Applied;
import io.fencegate.store.Claimed;
import io.fencegate.store.Committed;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.Missing;
import io.fencegate.store.Refused;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ItemTransactionsTest {

    @Test
    void itemsAreLockedInTheByteOrderOfTheirUtf8KeysNotInUtf16Order() {
        String bmpHigh = "k\uFFFD";          // EF BF BD in UTF-8
        String astral = "k\uD83D\uDE00";     // F0 9F 98 80: after it in byte order, before it in UTF-16 order
        assertThat(astral.compareTo(bmpHigh)).isNegative();
        assertThat(ItemTransactions.KEY_ORDER.compare(astral, bmpHigh)).isPositive();
        assertThat(ItemTransactions.lockOrder(List.of(astral, "b", bmpHigh, "a"))).containsExactly(3, 1, 2, 0);
        // The same order as comparing the UTF-8 bytes, prefixes first.
        List<String> keys = List.of("a", "ab", "a\u00e9", "a\uD83D\uDE00", "a\uFFFD", "b", "", "\u0000x");
        for (String x : keys) {
            for (String y : keys) {
                int bytes = java.util.Arrays.compareUnsigned(x.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        y.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                assertThat(Integer.signum(ItemTransactions.KEY_ORDER.compare(x, y))).as(x + " vs " + y)
                        .isEqualTo(Integer.signum(bytes));
            }
        }
    }

    @Test
    void everyItemMustPassOrTheRefusalNamesEachOneThatDidNot() {
        List<GuardedOp> ops = List.of(GuardedOp.put("a", 5, new byte[0]), GuardedOp.delete("b", 5),
                GuardedOp.put("c", 5, new byte[0]));
        assertThat(ItemTransactions.decide(GuardRule.STRICT, ops,
                List.of(ItemState.of(4, 4), ItemState.ABSENT, ItemState.of(1, 3))))
                .isEqualTo(new Committed(List.of(new Applied(4), new Applied(0), new Applied(1))));
        assertThat(ItemTransactions.decide(GuardRule.STRICT, ops,
                List.of(ItemState.of(5, 5), ItemState.ABSENT, ItemState.of(1, 6))))
                .isEqualTo(new Refused(List.of(new Refused.Item("a", new Stale(5, 5, 5)),
                        new Refused.Item("c", new Stale(1, 6, 5)))));
        assertThat(ItemTransactions.decide(GuardRule.SAME_LEASE, ops.subList(0, 1), List.of(ItemState.of(5, 5))))
                .isEqualTo(new Committed(List.of(new Applied(5))));
    }

    @Test
    void aMultiReadClaimsEveryItemOrNone() {
        List<ItemClaim> claims = List.of(new ItemClaim("a", 7), new ItemClaim("b", 7));
        ItemState a = new ItemState(3, 3, new byte[] {1});
        var claimed = ItemTransactions.decideClaims(claims, List.of(a, ItemState.ABSENT));
        assertThat(claimed).isInstanceOf(Claimed.class);
        assertThat(((Claimed) claimed).items().get(0)).isInstanceOfSatisfying(Found.class, f -> assertThat(f.fence()).isEqualTo(7));
        assertThat(((Claimed) claimed).items().get(1)).isEqualTo(new Missing(0, 7));
        assertThat(ItemTransactions.decideClaims(claims, List.of(a, ItemState.of(0, 8))))
                .isEqualTo(new Refused(List.of(new Refused.Item("b", new Stale(0, 8, 7)))));
    }

    @Test
    void badTransactionsAreRefusedBeforeAnyItemIsTouched() {
        StoreLimits limits = new StoreLimits(16, 10);
        assertThatThrownBy(() -> ItemTransactions.checkOps(limits, List.of())).hasMessageContaining("at least one");
        assertThatThrownBy(() -> ItemTransactions.checkOps(limits, List.of(GuardedOp.delete("a", 1), GuardedOp.delete("a", 2))))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> ItemTransactions.checkOps(limits,
                List.of(GuardedOp.put("a", 1, new byte[6]), GuardedOp.put("b", 1, new byte[6]))))
                .hasMessageContaining("together");
        assertThatThrownBy(() -> ItemTransactions.checkOps(limits, List.of(GuardedOp.delete("../a", 1))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ItemTransactions.checkClaims(limits, List.of(new ItemClaim("a", 0))))
                .isInstanceOf(IllegalArgumentException.class);
        List<ItemClaim> many = new ArrayList<>();
        for (int i = 0; i <= GuardedOp.MAX_ITEMS; i++) {
            many.add(new ItemClaim("k" + i, 1));
        }
        assertThatThrownBy(() -> ItemTransactions.checkClaims(limits, many)).hasMessageContaining("over the limit");
        ItemTransactions.checkOps(limits, List.of(GuardedOp.put("a", 1, new byte[5]), GuardedOp.put("b", 1, new byte[5])));
    }
}
