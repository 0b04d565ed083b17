package io.fencegate.store.spi;

/**
 * A bad store setting: the shared {@link io.fencegate.spi.InvalidSettingException} under the name
 * store code throws it by. {@link #key()} is relative to the store ({@code poolSize},
 * {@code statements.debit}), or null for the store as a whole.
 */
public final class InvalidSettingException extends io.fencegate.spi.InvalidSettingException {

    public InvalidSettingException(String key, String problem) {
        super(key, problem);
    }

    public InvalidSettingException(String key, String problem, Throwable cause) {
        super(key, problem, cause);
    }
}
