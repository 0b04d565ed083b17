package io.fencegate.store.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import org.junit.jupiter.api.Test;

/** DESIGN.md's table, every row, both rules, at its boundaries and over a full grid of small states. */
class GuardDecisionTest {

    private static final byte[] V = {42};

    @Test
    void strictWriteAppliesOnlyAboveTheLastWriteAndNotBelowTheFence() {
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(4, 4), 5)).isEqualTo(new Applied(4));
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(5, 5), 5)).as("one write per token")
                .isEqualTo(new Stale(5, 5, 5));
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(3, 5), 5)).as("own fenced read, then write")
                .isEqualTo(new Applied(3));
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(3, 6), 5)).as("fenced out by a higher read")
                .isEqualTo(new Stale(3, 6, 5));
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(6, 6), 5)).as("a newer write")
                .isEqualTo(new Stale(6, 6, 5));
    }

    @Test
    void sameLeaseWriteAppliesAtOrAboveTheFence() {
        assertThat(GuardDecision.write(GuardRule.SAME_LEASE, ItemState.of(5, 5), 5)).as("the same lease again")
                .isEqualTo(new Applied(5));
        assertThat(GuardDecision.write(GuardRule.SAME_LEASE, ItemState.of(3, 5), 4)).as("below the fence")
                .isEqualTo(new Stale(3, 5, 4));
        assertThat(GuardDecision.write(GuardRule.SAME_LEASE, ItemState.of(3, 5), 6)).isEqualTo(new Applied(3));
    }

    @Test
    void firstWriteOfAnAbsentItemAppliesWithPreviousTokenZero() {
        for (GuardRule rule : GuardRule.values()) {
            assertThat(GuardDecision.write(rule, ItemState.ABSENT, 1)).isEqualTo(new Applied(0));
            assertThat(GuardDecision.write(rule, ItemState.ABSENT, Long.MAX_VALUE)).isEqualTo(new Applied(0));
        }
    }

    @Test
    void boundariesAtTheLargestToken() {
        long max = Long.MAX_VALUE;
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(max - 1, max), max)).isEqualTo(new Applied(max - 1));
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(max, max), max)).isEqualTo(new Stale(max, max, max));
        assertThat(GuardDecision.write(GuardRule.SAME_LEASE, ItemState.of(max, max), max)).isEqualTo(new Applied(max));
        assertThat(GuardDecision.fencedRead(ItemState.of(1, max), max - 1)).isEqualTo(new Stale(1, max, max - 1));
        assertThat(GuardDecision.fencedRead(ItemState.of(1, max), max)).isEqualTo(new Missing(1, max));
    }

    @Test
    void staleWriteRetriedWithItsOwnTokenIsRecognisablyAlreadyApplied() {
        Stale retry = (Stale) GuardDecision.write(GuardRule.STRICT, ItemState.of(7, 7), 7);
        assertThat(retry.alreadyApplied()).isTrue();
        Stale older = (Stale) GuardDecision.write(GuardRule.STRICT, ItemState.of(7, 7), 6);
        assertThat(older.alreadyApplied()).isFalse();
    }

    @Test
    void fencedReadClaimsAtOrAboveTheFenceAndReportsTheLastWrite() {
        assertThat(GuardDecision.fencedRead(new ItemState(3, 4, V), 5)).isInstanceOfSatisfying(Found.class, f -> {
            assertThat(f.value()).isEqualTo(V);
            assertThat(f.token()).isEqualTo(3);
            assertThat(f.fence()).isEqualTo(5);
        });
        assertThat(GuardDecision.raisesFence(new ItemState(3, 4, V), 5)).isTrue();
        assertThat(GuardDecision.fencedRead(new ItemState(3, 5, V), 5)).as("an equal fence admits")
                .isInstanceOf(Found.class);
        assertThat(GuardDecision.raisesFence(new ItemState(3, 5, V), 5)).as("and has nothing to raise").isFalse();
        assertThat(GuardDecision.fencedRead(new ItemState(3, 6, V), 5)).isEqualTo(new Stale(3, 6, 5));
        assertThat(GuardDecision.fencedRead(ItemState.of(3, 3), 5)).as("a tombstone").isEqualTo(new Missing(3, 5));
        assertThat(GuardDecision.fencedRead(ItemState.ABSENT, 5)).as("a missing item gets a fence-only row")
                .isEqualTo(new Missing(0, 5));
        assertThat(GuardDecision.raisesFence(ItemState.ABSENT, 5)).isTrue();
    }

    @Test
    void backendThatDisagreesWithTheDecisionIsReportedNeverAnswered() {
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(4, 4), 5, true)).isEqualTo(new Applied(4));
        assertThat(GuardDecision.write(GuardRule.STRICT, ItemState.of(5, 5), 5, false)).isEqualTo(new Stale(5, 5, 5));
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> GuardDecision.write(GuardRule.STRICT, ItemState.of(5, 5), 5, true))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("disagrees");
    }

    @Test
    void plainReadAlwaysAnswersTheItemAsItIs() {
        assertThat(GuardDecision.plainRead(ItemState.ABSENT)).isEqualTo(new Missing(0, 0));
        assertThat(GuardDecision.plainRead(ItemState.of(4, 9))).isEqualTo(new Missing(4, 9));
        assertThat(GuardDecision.plainRead(new ItemState(4, 9, V))).isInstanceOfSatisfying(Found.class, f -> {
            assertThat(f.token()).isEqualTo(4);
            assertThat(f.fence()).isEqualTo(9);
        });
    }

    /** Every state with 0 <= token <= fence <= 6 and every token 1..7: the table, stated independently. */
    @Test
    void everyStateOfTheGridFollowsTheTable() {
        int cases = 0;
        for (long token = 0; token <= 6; token++) {
            for (long fence = token; fence <= 6; fence++) {
                for (long t = 1; t <= 7; t++) {
                    for (byte[] value : new byte[][] {null, V}) {
                        ItemState item = new ItemState(token, fence, value);
                        boolean strictApplies = fence <= t && token < t;
                        boolean sameLeaseApplies = fence <= t;
                        assertThat(GuardDecision.write(GuardRule.STRICT, item, t)).isEqualTo(
                                strictApplies ? new Applied(token) : new Stale(token, fence, t));
                        assertThat(GuardDecision.write(GuardRule.SAME_LEASE, item, t)).isEqualTo(
                                sameLeaseApplies ? new Applied(token) : new Stale(token, fence, t));
                        ReadResult read = GuardDecision.fencedRead(item, t);
                        if (fence > t) {
                            assertThat(read).isEqualTo(new Stale(token, fence, t));
                        } else if (value == null) {
                            assertThat(read).isEqualTo(new Missing(token, t));
                        } else {
                            assertThat(read).isInstanceOf(Found.class);
                            assertThat(((Found) read).token()).isEqualTo(token);
                            assertThat(((Found) read).fence()).isEqualTo(t);
                        }
                        assertThat(GuardDecision.raisesFence(item, t)).isEqualTo(fence < t);
                        cases++;
                    }
                }
            }
        }
        assertThat(cases).isEqualTo(28 * 7 * 2);
    }
}
