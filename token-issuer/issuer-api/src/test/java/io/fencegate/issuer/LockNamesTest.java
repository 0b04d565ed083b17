package io.fencegate.issuer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LockNamesTest {

    /** Moved from the ZooKeeper issuer's LockNodesTest when the rule became one class for every issuer. */
    @Test
    void loneSurrogatesEmptyAndOversizedNamesAreRefused() {
        assertThatThrownBy(() -> LockNames.check("bad\uD800")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockNames.check("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockNames.check(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockNames.check("é".repeat(2049))).isInstanceOf(IllegalArgumentException.class);
        LockNames.check("é".repeat(2048));
    }

    @Test
    void theLimitIsCountedInUtf8BytesAndTheMessageSaysWhatIsWrong() {
        assertThat(LockNames.utf8("x".repeat(LockNames.MAX_BYTES))).hasSize(4096);
        assertThatThrownBy(() -> LockNames.check("x".repeat(4095) + "é"))
                .hasMessage("lock must be at most 4096 UTF-8 bytes, was 4097");
        assertThatThrownBy(() -> LockNames.check("a\uDC00b")).hasMessageContaining("lone surrogates");
        assertThatThrownBy(() -> LockNames.check("")).hasMessage("lock must be a non-empty string");
    }
}
