package io.fencegate.store;

import java.nio.charset.StandardCharsets;

/**
 * What a store accepts: the checks every adapter runs before touching its backend, so bad
 * input fails the same way everywhere and changes nothing.
 *
 * @param maxKeyBytes   longest key, in UTF-8 bytes
 * @param maxValueBytes largest value
 */
public record StoreLimits(int maxKeyBytes, int maxValueBytes) {

    /** 2 KiB keys, 16 MiB values. */
    public static final StoreLimits DEFAULT = new StoreLimits(2048, 16 * 1024 * 1024);

    public StoreLimits {
        if (maxKeyBytes < 1 || maxValueBytes < 0) {
            throw new IllegalArgumentException("limits must be positive: maxKeyBytes=" + maxKeyBytes
                    + ", maxValueBytes=" + maxValueBytes);
        }
    }

    /** These limits with keys capped at {@code keyBytes} (a backend's key column, say). */
    public StoreLimits atMostKeyBytes(int keyBytes) {
        return maxKeyBytes <= keyBytes ? this : new StoreLimits(keyBytes, maxValueBytes);
    }

    /**
     * A key is non-empty, at most {@link #maxKeyBytes} long, has no NUL, no empty, "." or ".."
     * segment between slashes, and does not start with "/" (it may contain "/").
     */
    public void checkKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("key is empty");
        }
        if (key.getBytes(StandardCharsets.UTF_8).length > maxKeyBytes) {
            throw new IllegalArgumentException("key is longer than " + maxKeyBytes + " bytes");
        }
        if (key.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("key contains NUL");
        }
        for (String segment : key.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("key has an empty, '.' or '..' segment: " + key);
            }
        }
    }

    /** Tokens are positive 64-bit integers. */
    public static void checkToken(long token) {
        if (token <= 0) {
            throw new IllegalArgumentException("token must be positive, was " + token);
        }
    }

    /** The checks of a guarded delete or fenced read: the key and the token. */
    public void checkGuarded(String key, long token) {
        checkKey(key);
        checkToken(token);
    }

    /** The checks of a guarded write: the key, the token and the value. */
    public void checkWrite(String key, long token, byte[] value) {
        checkGuarded(key, token);
        checkValue(value);
    }

    public void checkValue(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value is null");
        }
        checkValueLength(value.length);
    }

    /** A value of {@code length} bytes (-1: not known yet) is within {@link #maxValueBytes}. */
    public void checkValueLength(long length) {
        if (length > maxValueBytes) {
            throw new IllegalArgumentException("value of " + length + " bytes is over the limit of " + maxValueBytes);
        }
    }
}
