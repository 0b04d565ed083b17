package io.fencegate.spi;

/**
 * A bad setting of a backend (an issuer or a store). {@link #key()} is relative to the backend's
 * section ({@code poolSize}, {@code statements.debit}, {@code dataDir}), or null for the backend
 * as a whole; the server prefixes where the backend sits in its configuration.
 */
public class InvalidSettingException extends IllegalArgumentException {
    private final String key;

    public InvalidSettingException(String key, String problem) {
        super(problem);
        this.key = key;
    }

    public InvalidSettingException(String key, String problem, Throwable cause) {
        super(problem, cause);
        this.key = key;
    }

    /** The bad key, relative to the backend's section, or null when the problem is the backend's as a whole. */
    public String key() {
        return key;
    }
}
