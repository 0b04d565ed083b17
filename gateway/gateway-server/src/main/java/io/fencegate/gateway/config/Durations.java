package io.fencegate.gateway.config;

import io.fencegate.spi.InvalidSettingException;
import io.fencegate.spi.Settings;
import java.time.Duration;

/** {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}: the stores' duration rule, for the gateway's own keys. */
final class Durations {
    private Durations() {}

    static Duration parse(String key, String text, Duration fallback) {
        try {
            return Settings.duration(key, text, fallback);
        } catch (InvalidSettingException e) {
            throw new ConfigException(key, e.getMessage());
        }
    }
}
