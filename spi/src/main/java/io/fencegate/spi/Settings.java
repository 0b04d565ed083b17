package io.fencegate.spi;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The value rules every backend type shares, so each reads a duration or a required key alike. */
public final class Settings {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    private Settings() {}

    /** {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}; {@code fallback} for null. */
    public static Duration duration(String key, String text, Duration fallback) {
        if (text == null) {
            return fallback;
        }
        Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            throw new InvalidSettingException(key, "expected a duration such as 500ms, 30s, 5m or 1h, got '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    /** {@code value}, refused when missing or blank. */
    public static String required(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidSettingException(key, "required");
        }
        return value;
    }
}
