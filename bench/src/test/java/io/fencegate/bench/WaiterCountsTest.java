package io.fencegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WaiterCountsTest {

    /**
     * The order a two-gateway run with 16 waiters granted in: the 8 waiters of the gateway already
     * in use went round three times before the other gateway's first acquires reached the queue,
     * then every waiter in turn. Counting every grant scored it 0.83 (19 over 23).
     */
    @Test
    void aWaiterThatJoinsLateIsNotCountedShort() {
        WaiterCounts counts = new WaiterCounts(16);
        for (int round = 0; round < 3; round++) {
            for (int w = 0; w < 16; w += 2) {
                assertThat(counts.granted(w)).as("before every waiter was granted once").isFalse();
            }
        }
        for (int round = 0; round < 20; round++) {
            for (int w = 0; w < 16; w++) {
                counts.granted(w);
            }
        }

        assertThat(counts.counted()).as("the round the last waiter joined in is not counted").isEqualTo(16 * 19);
        assertThat(counts.fairness()).isGreaterThanOrEqualTo(0.9);
    }

    @Test
    void aWaiterGrantedTwiceARoundStillShows() {
        WaiterCounts counts = new WaiterCounts(4);
        for (int w = 0; w < 4; w++) {
            counts.granted(w);
        }
        for (int round = 0; round < 10; round++) {
            for (int w = 0; w < 4; w++) {
                counts.granted(w);
            }
            counts.granted(0);
        }

        assertThat(counts.counted()).isEqualTo(50);
        assertThat(counts.fairness()).isEqualTo(0.5);
    }

    @Test
    void oneWaiterHasNoFairness() {
        WaiterCounts counts = new WaiterCounts(1);
        counts.granted(0);
        counts.granted(0);

        assertThat(counts.counted()).isEqualTo(1);
        assertThat(counts.fairness()).isNaN();
    }
}
