package io.fencegate.gateway.auth;

import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code auth} section of the gateway config: the API keys, stored hashed. No keys means
 * authentication is off (allowed on loopback only; the launcher enforces that, see {@link #enabled()}).
 */
public record AuthConfig(List<ApiKey> keys) {

    public static final AuthConfig NONE = new AuthConfig(List.of());

    public AuthConfig {
        keys = keys == null ? List.of() : List.copyOf(keys);
    }

    public boolean enabled() {
        return !keys.isEmpty();
    }

    /**
     * Checks every key once, at start; messages name the config key and the bad value (never a secret:
     * only hashes are in the config).
     *
     * @throws IllegalArgumentException on the first problem found
     */
    public AuthConfig validate() {
        Set<String> names = new HashSet<>();
        Set<String> hashes = new HashSet<>();
        for (int i = 0; i < keys.size(); i++) {
            ApiKey k = keys.get(i);
            String at = "auth.keys[" + i + "]";
            if (k == null) {
                throw new IllegalArgumentException(at + " is empty");
            }
            if (k.name() == null || k.name().isBlank()) {
                throw new IllegalArgumentException(at + ".name is required");
            }
            if (!names.add(k.name())) {
                throw new IllegalArgumentException(at + ".name '" + k.name() + "' is used twice");
            }
            String h = k.sha256() == null ? "" : k.sha256().toLowerCase(Locale.ROOT);
            if (h.length() != 64 || !h.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new IllegalArgumentException(at + ".sha256 must be 64 hex digits (from `fencegate hash-key`), got '"
                        + k.sha256() + "'");
            }
            if (!hashes.add(h)) {
                throw new IllegalArgumentException(at + ".sha256 is the same secret as another key");
            }
            checkPatterns(at + ".stores", k.stores());
            checkPatterns(at + ".lockPrefixes", k.lockPrefixes());
        }
        return this;
    }

    private static void checkPatterns(String at, List<String> values) {
        for (String v : values) {
            if (v == null || v.isEmpty()) {
                throw new IllegalArgumentException(at + " has an empty entry (use \"*\" for all)");
            }
        }
    }

    static byte[] hashBytes(ApiKey k) {
        return HexFormat.of().parseHex(k.sha256().toLowerCase(Locale.ROOT));
    }
}
