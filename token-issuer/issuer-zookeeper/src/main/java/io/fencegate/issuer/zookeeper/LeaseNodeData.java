package io.fencegate.issuer.zookeeper;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * What a lease node holds: everything another issuer instance needs to renew or release it.
 * The expiry lives here, not in the session, because the ttl is kept by the issuer's clock (short
 * ttls hold; a session timeout is seconds and shared by every lease of the session).
 *
 * @param mode      the token mode of the granting issuer, so any instance answers the same token
 * @param secret    the lease id's secret
 * @param ttlMs     the lease's ttl, which a renew adds to now
 * @param expiresAt epoch ms after which the lease is over
 * @param lock      the lock name as the caller gave it
 */
record LeaseNodeData(TokenMode mode, String secret, long ttlMs, long expiresAt, String lock) {

    private static final String VERSION = "fg1";

    byte[] toBytes() {
        return String.join("\n", VERSION, mode.name(), secret, Long.toString(ttlMs), Long.toString(expiresAt), lock)
                .getBytes(StandardCharsets.UTF_8);
    }

    LeaseNodeData withExpiresAt(long newExpiresAt) {
        return new LeaseNodeData(mode, secret, ttlMs, newExpiresAt, lock);
    }

    boolean secretMatches(String candidate) {
        return MessageDigest.isEqual(secret.getBytes(StandardCharsets.US_ASCII),
                candidate.getBytes(StandardCharsets.US_ASCII));
    }

    /** Empty if the bytes are not lease data (a foreign or corrupt node). */
    static Optional<LeaseNodeData> parse(byte[] bytes) {
        if (bytes == null) {
            return Optional.empty();
        }
        String[] parts = new String(bytes, StandardCharsets.UTF_8).split("\n", 6);
        if (parts.length != 6 || !parts[0].equals(VERSION)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new LeaseNodeData(TokenMode.valueOf(parts[1]), parts[2],
                    Long.parseLong(parts[3]), Long.parseLong(parts[4]), parts[5]));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
