package io.fencegate.store.spi;

/**
 * A bad setting. {@link #key()} is relative to the store ({@code poolSize}, {@code statements.debit}),
 * or null for the store as a whole; the server prefixes where the store sits in its configuration.
 */
public final class InvalidSettingException extends IllegalArgumentException {
    private final String key;

    public InvalidSettingException(String key, String problem) {
        super(problem);
        this.key = key;
    }

    public InvalidSettingException(String key, String problem, Throwable cause) {
        super(problem, cause);
        this.key = key;
    }

    /** The bad key, relative to the store, or null when the problem is the store's as a whole. */
    public String key() {
        return key;
    }
}
