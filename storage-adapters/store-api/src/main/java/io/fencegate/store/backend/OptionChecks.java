package io.fencegate.store.backend;

import java.time.Duration;

/**
 * The checks behind every store options object's {@code validate()}, so all of them refuse bad
 * settings alike: an {@link IllegalArgumentException} whose message starts with the option's
 * name, then what it must be and what it was ({@code poolSize: must be 1..1000, was 0}).
 */
public final class OptionChecks {

    private OptionChecks() {}

    public static <T> T required(String option, T value) {
        if (value == null) {
            throw new IllegalArgumentException(option + ": is required");
        }
        return value;
    }

    public static int inRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + ": must be " + min + ".." + max + ", was " + value);
        }
        return value;
    }

    public static Duration atLeast(String option, Duration value, Duration min) {
        if (value == null || value.compareTo(min) < 0) {
            throw new IllegalArgumentException(option + ": must be at least " + min.toMillis() + " ms, was "
                    + (value == null ? "null" : value.toMillis() + " ms"));
        }
        return value;
    }

    public static String notBlank(String option, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(option + ": must not be empty, was '" + value + "'");
        }
        return value;
    }
}
