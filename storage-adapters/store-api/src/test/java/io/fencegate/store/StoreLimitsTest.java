package io.fencegate.store;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StoreLimitsTest {

    private final StoreLimits limits = new StoreLimits(1024, 10);

    @ParameterizedTest
    @ValueSource(strings = {"a", "docs/2026/report.txt", "größe/ключ/键", "a..b", ".hidden/x"})
    void acceptsOrdinaryKeys(String key) {
        assertThatCode(() -> limits.checkKey(key)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "..", "a/../b", "a/./b", "/abs", "a//b", "trailing/", "nul\0byte"})
    void refusesKeysThatCouldEscapeOrAlias(String key) {
        assertThatThrownBy(() -> limits.checkKey(key)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keyLengthIsCountedInUtf8Bytes() {
        assertThatCode(() -> limits.checkKey("x".repeat(1024))).doesNotThrowAnyException();
        assertThatThrownBy(() -> limits.checkKey("é".repeat(513))).hasMessageContaining("1024 bytes");
    }

    @Test
    void tokensMustBePositive() {
        assertThatThrownBy(() -> StoreLimits.checkToken(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoreLimits.checkToken(-5)).isInstanceOf(IllegalArgumentException.class);
        assertThatCode(() -> StoreLimits.checkToken(Long.MAX_VALUE)).doesNotThrowAnyException();
    }

    @Test
    void valuesOverTheLimitAreRefused() {
        assertThatCode(() -> limits.checkValue(new byte[10])).doesNotThrowAnyException();
        assertThatThrownBy(() -> limits.checkValue(new byte[11])).hasMessageContaining("over the limit");
    }
}
