package io.fencegate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BodyBudgetTest {
    private static final long MIB = 1 << 20;

    @Test
    void aLargeBodyWaitsUntilEarlierOnesGiveTheirBytesBack() {
        BodyBudget budget = new BodyBudget(32 * MIB);
        BodyBudget.Reservation first = budget.reserve("k", 16 * MIB);
        BodyBudget.Reservation second = budget.reserve("k", 16 * MIB);
        BodyBudget.Reservation third = budget.reserve("k", 16 * MIB);
        assertThat(first.ready()).isCompleted();
        assertThat(second.ready()).isCompleted();
        assertThat(third.ready()).as("over the budget: waits").isNotDone();

        first.release();
        assertThat(third.ready()).isCompleted();
        assertThat(budget.free()).isZero();
        second.release();
        third.release();
        assertThat(budget.free()).isEqualTo(32 * MIB);
    }

    @Test
    void waitersAreGrantedInArrivalOrderSoALargeOneIsNotStarvedByLaterSmallerOnes() {
        BodyBudget budget = new BodyBudget(32 * MIB);
        BodyBudget.Reservation holder = budget.reserve("k", 24 * MIB);
        BodyBudget.Reservation large = budget.reserve("k", 16 * MIB);
        BodyBudget.Reservation later = budget.reserve("k", 4 * MIB);
        assertThat(large.ready()).isNotDone();
        assertThat(later.ready()).as("fits, but a larger body came first").isNotDone();

        holder.release();
        assertThat(large.ready()).isCompleted();
        assertThat(later.ready()).isCompleted();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueueAndAReleaseTwiceGivesBackOnce() {
        BodyBudget budget = new BodyBudget(16 * MIB);
        BodyBudget.Reservation holder = budget.reserve("k", 16 * MIB);
        BodyBudget.Reservation gaveUp = budget.reserve("k", 8 * MIB);
        BodyBudget.Reservation next = budget.reserve("k", 8 * MIB);
        gaveUp.release(); // its request timed out while waiting
        holder.release();
        holder.release();
        assertThat(gaveUp.ready()).isNotDone();
        assertThat(next.ready()).isCompleted();
        assertThat(budget.free()).isEqualTo(8 * MIB);
    }

    @Test
    void everyBodyCountsSmallOnesTooAndOneOverTheWholeBudgetPassesAlone() {
        BodyBudget budget = new BodyBudget(16 * MIB);
        BodyBudget.Reservation holder = budget.reserve("k", 16 * MIB);
        BodyBudget.Reservation small = budget.reserve("k", BodyBudget.SMALL - 1);
        assertThat(small.ready()).as("a small body is counted: it waits while the budget is full").isNotDone();
        holder.release();
        assertThat(small.ready()).isCompleted();
        small.release();
        BodyBudget.Reservation huge = budget.reserve("k", 64 * MIB);
        assertThat(huge.ready()).as("clamped to the whole budget: passes alone").isCompleted();
        huge.release();
        assertThat(budget.free()).isEqualTo(16 * MIB);
    }

    @Test
    void aSmallBodyThatFitsIsNotQueuedBehindALargeOneThatWaits() {
        BodyBudget budget = new BodyBudget(32 * MIB);
        BodyBudget.Reservation holder = budget.reserve("k", 20 * MIB);
        BodyBudget.Reservation large = budget.reserve("k", 16 * MIB);
        BodyBudget.Reservation small = budget.reserve("k", BodyBudget.SMALL - 1);
        assertThat(large.ready()).isNotDone();
        assertThat(small.ready()).as("the usual write never waits for large bodies").isCompleted();
        small.release();
        holder.release();
        assertThat(large.ready()).isCompleted();
        large.release();
        assertThat(budget.free()).isEqualTo(32 * MIB);
    }

    @Test
    void aKeyAtItsShareIsRefusedWhileAnotherKeyGetsItsShare() {
        BodyBudget budget = new BodyBudget(32 * MIB, 16 * MIB);
        BodyBudget.Reservation a1 = budget.reserve("a", 16 * MIB);
        assertThat(budget.reserve("a", 1)).as("key a holds its whole share: refused, not queued").isNull();
        BodyBudget.Reservation b1 = budget.reserve("b", 8 * MIB);
        BodyBudget.Reservation b2 = budget.reserve("b", 8 * MIB);
        assertThat(a1.ready()).isCompleted();
        assertThat(b1.ready()).isCompleted();
        assertThat(b2.ready()).isCompleted();
        a1.release();
        BodyBudget.Reservation a2 = budget.reserve("a", 64 * MIB);
        assertThat(a2).as("clamped to the share: one body over it passes alone").isNotNull();
        assertThat(a2.ready()).isCompleted();
        a2.release();
        b1.release();
        b2.release();
        assertThat(budget.free()).isEqualTo(32 * MIB);
    }

    @Test
    void queuedBytesCountAgainstTheKeysShare() {
        BodyBudget budget = new BodyBudget(16 * MIB, 12 * MIB);
        BodyBudget.Reservation b = budget.reserve("b", 12 * MIB);
        BodyBudget.Reservation a = budget.reserve("a", 12 * MIB);
        assertThat(a.ready()).isNotDone();
        assertThat(budget.reserve("a", 2 * MIB)).as("a's waiting body counts toward its share").isNull();
        a.release();
        assertThat(budget.reserve("a", 2 * MIB)).as("a timed-out wait gives the share back").isNotNull();
        b.release();
    }
}
