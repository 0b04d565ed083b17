package io.fencegate.gateway.config;

import io.fencegate.spi.InvalidSettingException;

/** A config problem, naming the key: {@code stores.orders.rule: expected strict or same-lease, got 'x'}. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String key, String problem) {
        super(key + ": " + problem);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    /** {@code e}, a backend's own setting problem, placed under {@code section} ({@code stores.orders}, {@code issuer}). */
    static ConfigException at(String section, InvalidSettingException e) {
        String key = e.key() == null ? section : section + "." + e.key();
        return new ConfigException(key + ": " + e.getMessage(), e.getCause() != null ? e.getCause() : e);
    }
}
