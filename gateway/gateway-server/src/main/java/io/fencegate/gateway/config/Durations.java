package io.fencegate.gateway.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}: the durations a config holds. */
final class Durations {
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    private Durations() {}

    static Duration parse(String key, String text, Duration fallback) {
        if (text == null) {
            return fallback;
        }
        Matcher m = FORMAT.matcher(text.strip());
        if (!m.matches()) {
            throw new ConfigException(key, "expected a duration such as 500ms, 30s, 5m or 1h, got '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }
}
