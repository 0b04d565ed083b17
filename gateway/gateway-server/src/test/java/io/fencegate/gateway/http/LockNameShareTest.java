package io.fencegate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class LockNameShareTest {
    private static final String LONG = "x".repeat(1000);

    @Test
    void aNameCostsWhatItAddsToAListingReplyAndAtLeastTheTablesOwnHeap() {
        assertThat(LockNameShare.cost("a")).isEqualTo(LockNameShare.MIN_COST);
        assertThat(LockNameShare.cost(LONG)).isEqualTo(4 + 1334); // base64 of 1000 bytes, unpadded, and its length
        assertThat(LockNameShare.cost("é".repeat(600))).isEqualTo(4 + 1600); // UTF-8 bytes, not chars
    }

    @Test
    void aKeyPastItsShareIsRefused429AndAnotherKeyIsNot() {
        LockNameShare names = new LockNameShare(1 << 20, 3 * LockNameShare.cost(LONG + "0"), Duration.ofMinutes(10), 60);
        for (int i = 0; i < 3; i++) {
            assertThat(names.admit("a", LONG + i, 1000)).isNull();
        }
        Problem refused = names.admit("a", LONG + 3, 1000);
        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(429);
        assertThat(names.admit("a", LONG + 0, 1000)).as("a name a already uses costs nothing").isNull();
        assertThat(names.admit("b", LONG + 3, 1000)).as("b has a share of its own").isNull();
        assertThat(names.used()).isEqualTo(4 * LockNameShare.cost(LONG + "0"));
    }

    @Test
    void pastTheTotalANewNameIsRefused503AndAuthOffHasTheTotalAlone() {
        long two = 2 * LockNameShare.cost(LONG + "0");
        LockNameShare names = new LockNameShare(two, two, Duration.ofMinutes(10), 60);
        assertThat(names.admit(null, LONG + 0, 1000)).isNull();
        assertThat(names.admit("b", LONG + 1, 1000)).isNull();
        Problem refused = names.admit("c", LONG + 2, 1000);
        assertThat(refused.status()).isEqualTo(503);
        assertThat(names.used()).isEqualTo(two);
    }

    @Test
    void aNameStopsCountingItsTtlPlusTheWindowAfterItsLastUse() {
        long one = LockNameShare.cost(LONG + "0");
        LockNameShare names = new LockNameShare(1 << 20, one, Duration.ofMillis(200), 60);
        assertThat(names.admit("a", LONG + 0, 100)).isNull();
        assertThat(names.admit("a", LONG + 1, 100)).isNotNull();
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> names.admit("a", LONG + 1, 100) == null);
        assertThat(names.used()).isEqualTo(one);
    }
}
