package io.fencegate.issuer.backend;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Lease ids of the shape {@code <version>.<base64url(UTF-8 subject)>.<secret>}, where the secret
 * is 128 random bits in lower-case hex. Each backend picks its version tag and what the subject
 * is (ZooKeeper: the lease node's path; Redis: the lock name).
 *
 * <p>Why this shape: the subject lets any issuer instance on the same backend find the lease
 * without shared state (gateways scale out); the secret, stored with the lease, makes the id
 * unguessable, so knowing a lock's name, or even where its lease lives, is not enough to renew or
 * release it.
 */
public final class LeaseIdFormat {

    /** An id taken apart; the backend still checks that its subject names something it made. */
    public record Parsed(String subject, String secret) { }

    private static final int SECRET_BYTES = 16;
    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String version;
    private final int maxChars;

    /**
     * @param version  the backend's tag, first part of every id
     * @param maxChars longer ids are refused before any decoding
     */
    public LeaseIdFormat(String version, int maxChars) {
        this.version = version;
        this.maxChars = maxChars;
    }

    /** A new unguessable secret: 128 random bits, lower-case hex. */
    public static String newSecret() {
        byte[] bytes = new byte[SECRET_BYTES];
        RANDOM.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }

    public String format(String subject, String secret) {
        return version + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(subject.getBytes(StandardCharsets.UTF_8)) + "." + secret;
    }

    /** Empty for anything that is not an id of this format with a non-empty subject. */
    public Optional<Parsed> parse(String leaseId) {
        if (leaseId == null || leaseId.length() > maxChars) {
            return Optional.empty();
        }
        String[] parts = leaseId.split("\\.", -1);
        if (parts.length != 3 || !parts[0].equals(version) || parts[1].isEmpty() || !isSecret(parts[2])) {
            return Optional.empty();
        }
        try {
            String subject = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
            // Round-trip check: refuses non-canonical encodings and invalid UTF-8, so one lease has one id.
            if (subject.isEmpty() || !format(subject, parts[2]).equals(leaseId)) {
                return Optional.empty();
            }
            return Optional.of(new Parsed(subject, parts[2]));
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
