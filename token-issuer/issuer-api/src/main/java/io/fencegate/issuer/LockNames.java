package io.fencegate.issuer;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one lock-name rule every {@link LeaseIssuer} applies: a lock is a non-empty string of valid
 * Unicode of at most {@value #MAX_BYTES} UTF-8 bytes. Anything else, '/' and any character
 * included, is the caller's to choose. A refused name fails the call with
 * {@link IllegalArgumentException} and changes nothing.
 *
 * <p>Why bytes, not characters: lock names become ZooKeeper node names and Redis keys, whose
 * limits are in bytes, and the gateway derives its longest lock ({@code store/key}) from a key
 * limit in bytes. Why valid Unicode: a lone surrogate has no UTF-8 form; an encoder that replaces
 * it with '?' would make two names one lock.
 */
public final class LockNames {

    /** The longest lock name, in UTF-8 bytes. */
    public static final int MAX_BYTES = 4096;

    private LockNames() { }

    /** Refuses a name that breaks the rule; the message says which part. */
    public static void check(String lock) {
        utf8(lock);
    }

    /** The name's UTF-8 bytes, after {@link #check}ing it: for backends that store the name as bytes. */
    public static byte[] utf8(String lock) {
        if (lock == null || lock.isEmpty()) {
            throw new IllegalArgumentException("lock must be a non-empty string");
        }
        byte[] bytes;
        try {
            // Strict, unlike String.getBytes, which turns a lone surrogate into '?'.
            ByteBuffer encoded = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(lock));
            bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("lock must be valid Unicode (no lone surrogates)", e);
        }
        if (bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException("lock must be at most " + MAX_BYTES + " UTF-8 bytes, was " + bytes.length);
        }
        return bytes;
    }
}
