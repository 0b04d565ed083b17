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
 * @param lockDelayMs the lock-delay the lease was granted with ({@link LockDelays}); 0 for none
 */
record LeaseNodeData(TokenMode mode, String secret, long ttlMs, long expiresAt, String lock, long lockDelayMs) {

    private static final String VERSION = "fg1";
    /** With a lock-delay; leases without one keep writing fg1, which older issuers read. */
    private static final String VERSION_WITH_DELAY = "fg2";

    LeaseNodeData(TokenMode mode, String secret, long ttlMs, long expiresAt, String lock) {
        this(mode, secret, ttlMs, expiresAt, lock, 0);
    }

    byte[] toBytes() {
        String text = lockDelayMs == 0
                ? String.join("\n", VERSION, mode.name(), secret, Long.toString(ttlMs), Long.toString(expiresAt), lock)
                : String.join("\n", VERSION_WITH_DELAY, mode.name(), secret, Long.toString(ttlMs),
                        Long.toString(expiresAt), Long.toString(lockDelayMs), lock);
        return text.getBytes(StandardCharsets.UTF_8);
    }

    LeaseNodeData withExpiresAt(long newExpiresAt) {
        return new LeaseNodeData(mode, secret, ttlMs, newExpiresAt, lock, lockDelayMs);
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
        String text = new String(bytes, StandardCharsets.UTF_8);
        boolean delayed = text.startsWith(VERSION_WITH_DELAY + "\n");
        String[] parts = text.split("\n", delayed ? 7 : 6);
        if (parts.length != (delayed ? 7 : 6) || !parts[0].equals(delayed ? VERSION_WITH_DELAY : VERSION)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new LeaseNodeData(TokenMode.valueOf(parts[1]), parts[2],
                    Long.parseLong(parts[3]), Long.parseLong(parts[4]), parts[delayed ? 6 : 5],
                    delayed ? Long.parseLong(parts[5]) : 0));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
