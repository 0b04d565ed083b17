package io.fencegate.gateway.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Makes and hashes API keys, for {@code fencegate hash-key}.
 *
 * <p>Why plain SHA-256 and not PBKDF2/bcrypt: slow hashes protect low-entropy human passwords from
 * offline guessing. Our keys are 256 random bits made by {@link #newKey()}, so a leaked config with
 * their SHA-256 cannot be brute-forced anyway, while a slow hash would cost milliseconds of CPU on
 * every request and hand an attacker a cheap way to exhaust the gateway. Keys shorter than
 * {@link #MIN_LENGTH} are refused so that reasoning holds for hand-made keys too.
 */
public final class ApiKeyHasher {
    /** 128 bits of base64url, at least. */
    public static final int MIN_LENGTH = 22;

    private static final SecureRandom RANDOM = new SecureRandom();

    private ApiKeyHasher() {}

    /** A new random key: 32 bytes from SecureRandom, base64url without padding (43 characters). */
    public static String newKey() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The lower-case hex SHA-256 of {@code key}, as it goes into {@code auth.keys[].sha256}. */
    public static String sha256Hex(String key) {
        if (key == null || key.strip().length() < MIN_LENGTH) {
            throw new IllegalArgumentException("an API key needs at least " + MIN_LENGTH
                    + " characters of randomness; use a generated one");
        }
        return HexFormat.of().formatHex(digest(key));
    }

    static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** A ready-made config entry for a new key (the caller prints the key once and this YAML). */
    public static String configSnippet(String name, String key) {
        return "- name: " + name + "\n  sha256: " + sha256Hex(key) + "\n  stores: \"*\"\n  lockPrefixes: \"*\"\n";
    }
}
