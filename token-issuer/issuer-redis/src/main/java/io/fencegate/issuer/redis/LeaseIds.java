package io.fencegate.issuer.redis;

import io.fencegate.issuer.backend.LeaseIdFormat;
import java.util.Optional;

/**
 * Lease ids: {@code rl1.<base64url(lock)>.<128-bit random secret, hex>} ({@link LeaseIdFormat}).
 * The lock name lets any issuer instance find the lock key for renew and release; the secret is
 * stored in the lock key's value, so only the holder can renew or release.
 */
final class LeaseIds {

    /** A 4 KiB lock name, base64url-encoded, fits. */
    static final LeaseIdFormat FORMAT = new LeaseIdFormat("rl1", 8192);

    record Parsed(String lock, String secret) { }

    private LeaseIds() { }

    /** Empty for anything that is not an id this issuer could have made. */
    static Optional<Parsed> parse(String leaseId) {
        return FORMAT.parse(leaseId).map(id -> new Parsed(id.subject(), id.secret()));
    }
}
