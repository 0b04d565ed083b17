package io.fencegate.spring.boot;

import java.time.Duration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/** Start-up checks whose failure names the property and its value (Boot prints both). */
final class PropertyChecks {

    private PropertyChecks() { }

    static String required(String property, String value, String why) {
        if (value == null || value.isBlank()) {
            throw new InvalidConfigurationPropertyValueException(property, value, "required " + why);
        }
        return value;
    }

    static Duration positive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new InvalidConfigurationPropertyValueException(property, value, "must be a positive duration");
        }
        return value;
    }

    /** Turns a builder's refusal into one that names the property it came from. */
    static InvalidConfigurationPropertyValueException invalid(String property, Object value, IllegalArgumentException e) {
        InvalidConfigurationPropertyValueException wrapped =
                new InvalidConfigurationPropertyValueException(property, value, e.getMessage());
        wrapped.initCause(e);
        return wrapped;
    }
}
