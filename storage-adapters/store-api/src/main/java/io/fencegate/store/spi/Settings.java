package io.fencegate.store.spi;

import io.fencegate.store.GuardRule;
import java.time.Duration;

/**
 * The value rules every store type shares, so each reads a rule, a duration or a required key alike.
 * The duration and required-key rules are every backend's ({@link io.fencegate.spi.Settings}).
 */
public final class Settings {
    private Settings() {}

    /** {@code strict} (also for null) or {@code same-lease}. */
    public static GuardRule rule(String key, String text) {
        if (text == null || text.equals("strict")) {
            return GuardRule.STRICT;
        }
        if (text.equals("same-lease")) {
            return GuardRule.SAME_LEASE;
        }
        throw new InvalidSettingException(key, "expected strict or same-lease, got '" + text + "'");
    }

    /** {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}; {@code fallback} for null: {@link io.fencegate.spi.Settings#duration}. */
    public static Duration duration(String key, String text, Duration fallback) {
        return io.fencegate.spi.Settings.duration(key, text, fallback);
    }

    /** {@code value}, refused when missing or blank: {@link io.fencegate.spi.Settings#required}. */
    public static String required(String key, String value) {
        return io.fencegate.spi.Settings.required(key, value);
    }
}
