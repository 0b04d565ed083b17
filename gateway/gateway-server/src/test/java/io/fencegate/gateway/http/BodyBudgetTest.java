package io.fencegate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BodyBudgetTest {
    private static final long MIB = 1 << 20;

    @Test
    void aLargeBodyWaitsUntilEarlierOnesGiveTheirBytesBack() {
        BodyBudget budget = new BodyBudget(32 * MIB);
        BodyBudget.Reservation first = budget.reserve(16 * MIB);
        BodyBudget.Reservation second = budget.reserve(16 * MIB);
        BodyBudget.Reservation third = budget.reserve(16 * MIB);
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
        BodyBudget.Reservation holder = budget.reserve(24 * MIB);
        BodyBudget.Reservation large = budget.reserve(16 * MIB);
        BodyBudget.Reservation later = budget.reserve(4 * MIB);
        assertThat(large.ready()).isNotDone();
        assertThat(later.ready()).as("fits, but a larger body came first").isNotDone();

        holder.release();
        assertThat(large.ready()).isCompleted();
        assertThat(later.ready()).isCompleted();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueueAndAReleaseTwiceGivesBackOnce() {
        BodyBudget budget = new BodyBudget(16 * MIB);
        BodyBudget.Reservation holder = budget.reserve(16 * MIB);
        BodyBudget.Reservation gaveUp = budget.reserve(8 * MIB);
        BodyBudget.Reservation next = budget.reserve(8 * MIB);
        gaveUp.release(); // its request timed out while waiting
        holder.release();
        holder.release();
        assertThat(gaveUp.ready()).isNotDone();
        assertThat(next.ready()).isCompleted();
        assertThat(budget.free()).isEqualTo(8 * MIB);
    }

    @Test
    void smallBodiesAndOneBodyOverTheWholeBudgetAreNeverStuck() {
        BodyBudget budget = new BodyBudget(16 * MIB);
        BodyBudget.Reservation holder = budget.reserve(16 * MIB);
        BodyBudget.Reservation small = budget.reserve(BodyBudget.SMALL - 1);
        assertThat(small.ready()).as("small bodies are not counted").isCompleted();
        holder.release();
        BodyBudget.Reservation huge = budget.reserve(64 * MIB);
        assertThat(huge.ready()).as("clamped to the whole budget: passes alone").isCompleted();
        huge.release();
        assertThat(budget.free()).isEqualTo(16 * MIB);
    }

    @Test
    void aSmallBodyIsNotQueuedBehindALargeOneThatWaits() {
        BodyBudget budget = new BodyBudget(16 * MIB);
        BodyBudget.Reservation holder = budget.reserve(16 * MIB);
        BodyBudget.Reservation large = budget.reserve(16 * MIB);
        BodyBudget.Reservation small = budget.reserve(BodyBudget.SMALL - 1);
        assertThat(large.ready()).isNotDone();
        assertThat(small.ready()).as("the usual write never waits for large bodies").isCompleted();
        small.release();
        holder.release();
        assertThat(large.ready()).isCompleted();
        large.release();
        assertThat(budget.free()).isEqualTo(16 * MIB);
    }
}
