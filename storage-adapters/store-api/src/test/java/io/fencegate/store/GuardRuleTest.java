package io.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rules table of DESIGN.md, row by row. */
class GuardRuleTest {

    @Test
    void strictAdmitsOnlyTokensAboveTheLastWriteAndNotBelowTheFence() {
        assertThat(GuardRule.STRICT.admits(5, 4, 4)).isTrue();
        assertThat(GuardRule.STRICT.admits(5, 5, 5)).as("one write per token").isFalse();
        assertThat(GuardRule.STRICT.admits(5, 3, 5)).as("own fenced read, then write").isTrue();
        assertThat(GuardRule.STRICT.admits(5, 3, 6)).as("fenced out by a higher read").isFalse();
    }

    @Test
    void sameLeaseAdmitsRepeatedWritesOfOneToken() {
        assertThat(GuardRule.SAME_LEASE.admits(5, 5, 5)).isTrue();
        assertThat(GuardRule.SAME_LEASE.admits(4, 3, 5)).isFalse();
    }
}
