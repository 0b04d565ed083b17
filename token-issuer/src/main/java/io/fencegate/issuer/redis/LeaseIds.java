package io.fencegate.issuer.redis;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Lease ids: {@code rl1.<base64url(lock)>.<128-bit random secret, hex>}.
 *
 * <p>Why this shape: the lock name lets any issuer instance find the lock key for renew and
 * release without shared state; the secret, stored in the lock key's value, makes the id
 * unguessable, so only the holder can renew or release.
 */
final class LeaseIds {

    private static final String VERSION = "rl1";
    private static final int SECRET_BYTES = 16;
    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    record Parsed(String lock, String secret) { }

    private LeaseIds() { }

    static String newSecret() {
        byte[] bytes = new byte[SECRET_BYTES];
        RANDOM.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }

    static String format(String lock, String secret) {
        return VERSION + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(lock.getBytes(StandardCharsets.UTF_8))
                + "." + secret;
    }

    /** Empty for anything that is not an id this issuer could have made. */
    static Optional<Parsed> parse(String leaseId) {
        if (leaseId == null || leaseId.length() > 8192) {
            return Optional.empty();
        }
        String[] parts = leaseId.split("\\.", -1);
        if (parts.length != 3 || !parts[0].equals(VERSION) || !isSecret(parts[2]) || parts[1].isEmpty()) {
            return Optional.empty();
        }
        try {
            String lock = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
            // Round-trip check: refuses non-canonical encodings and invalid UTF-8.
            if (lock.isEmpty() || !format(lock, parts[2]).equals(leaseId)) {
                return Optional.empty();
            }
            return Optional.of(new Parsed(lock, parts[2]));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static boolean isSecret(String s) {
        if (s.length() != SECRET_BYTES * 2) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }
}
