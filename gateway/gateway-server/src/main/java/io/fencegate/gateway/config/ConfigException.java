package io.fencegate.gateway.config;

/** A config problem, naming the key: {@code stores.orders.rule: expected strict or same-lease, got 'x'}. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String key, String problem) {
        super(key + ": " + problem);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
