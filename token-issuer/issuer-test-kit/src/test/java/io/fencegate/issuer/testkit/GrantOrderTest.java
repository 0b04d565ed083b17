package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import org.junit.jupiter.api.Test;

/** The tests' witness of exclusion and token order: it must see every overlap and every step back. */
class GrantOrderTest {

    private static Lease lease(String lock, long token) {
        return new Lease(lock, "id-" + token, token, Long.MAX_VALUE);
    }

    @Test
    void exclusiveGrantsWithRisingTokensAreNoViolation() {
        GrantOrder order = new GrantOrder();
        for (long token : new long[] {3, 5, 9}) {
            order.granted("a", lease("a", token));
            order.releasing("a");
        }
        order.granted("b", lease("b", 4));
        assertThat(order.violations()).isEmpty();
        assertThat(order.tokens("a")).containsExactly(3L, 5L, 9L);
        assertThat(order.tokens("never")).isEmpty();
        assertThat(order.maxToken()).isEqualTo(9);
    }

    @Test
    void aGrantWhileTheLockIsHeldIsAViolation() {
        GrantOrder order = new GrantOrder();
        order.granted("a", lease("a", 3));
        order.granted("a", lease("a", 4));
        assertThat(order.violations()).containsExactly("two live leases on a (token 4)");
    }

    @Test
    void aTokenNotAboveThePreviousGrantIsAViolation() {
        GrantOrder order = new GrantOrder();
        order.granted("a", lease("a", 5));
        order.releasing("a");
        order.granted("a", lease("a", 5));
        order.releasing("a");
        order.granted("a", lease("a", 2));
        assertThat(order.violations()).containsExactly("token 5 on a after 5", "token 2 on a after 5");
        assertThat(order.tokens("a")).containsExactly(5L, 5L, 2L);
    }

    @Test
    void aViolationTheTestSawIsReportedWithTheOthers() {
        GrantOrder order = new GrantOrder();
        order.violation("release of a live lease answered false on a");
        assertThat(order.violations()).containsExactly("release of a live lease answered false on a");
    }
}
