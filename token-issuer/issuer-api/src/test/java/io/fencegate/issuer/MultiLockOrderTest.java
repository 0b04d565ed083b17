package io.fencegate.issuer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MultiLockOrderTest {

    @Test
    void locksAreOrderedByTheirUtf8BytesNotByJavaStrings() {
        // U+FF01 sorts after U+1F512 in UTF-16 (0xFF01 > 0xD83D) but before it in UTF-8 (EF.. < F0..).
        String fullwidth = "a/\uFF01";
        String padlock = "a/\uD83D\uDD12";
        assertThat(fullwidth.compareTo(padlock)).isPositive();
        assertThat(MultiLock.canonicalOrder(List.of(padlock, fullwidth, "a/z", "B")))
                .containsExactly("B", "a/z", fullwidth, padlock);
    }

    @Test
    void everyAskingOrderGivesTheSameOrder() {
        List<String> one = MultiLock.canonicalOrder(List.of("x", "y", "z"));
        assertThat(MultiLock.canonicalOrder(List.of("z", "x", "y"))).isEqualTo(one);
        assertThat(MultiLock.canonicalOrder(List.of("y", "z", "x"))).isEqualTo(one);
    }

    @Test
    void emptyDuplicateTooManyAndBadNamesAreRefused() {
        assertThatThrownBy(() -> MultiLock.canonicalOrder(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MultiLock.canonicalOrder(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MultiLock.canonicalOrder(List.of("a", "b", "a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        List<String> many = new ArrayList<>();
        for (int i = 0; i <= MultiLock.MAX_LOCKS; i++) {
            many.add("l" + i);
        }
        assertThatThrownBy(() -> MultiLock.canonicalOrder(many))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most " + MultiLock.MAX_LOCKS);
        assertThatThrownBy(() -> MultiLock.canonicalOrder(List.of("a", "")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MultiLock.canonicalOrder(List.of("a", "x".repeat(LockNames.MAX_BYTES + 1))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
