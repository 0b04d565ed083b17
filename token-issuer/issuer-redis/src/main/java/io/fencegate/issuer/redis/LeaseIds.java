package io.fencegate.issuer.redis;

import io.fencegate.issuer.backend.LeaseIdFormat;
import java.util.Optional;

/**
 * Lease ids: {@code <tag>.<base64url(lock)>.<128-bit random secret, hex>} ({@link LeaseIdFormat}),
 * the tag saying where the lease lives: {@code rl1} a write lease (the lock key's value),
 * {@code rr1} a read lease (the lock's readers hash), {@code rp1} a semaphore's permit (a write
 * lease on its slot's lock {@code name/k}). The lock name lets any issuer instance find the lease
 * for renew and release; the secret is stored with the lease, so only the holder can renew or
 * release.
 */
final class LeaseIds {

    /** Where a lease lives, by its id's tag. */
    enum Kind { WRITE, READ, PERMIT }

    /** A 4 KiB lock name, base64url-encoded, fits. */
    static final LeaseIdFormat FORMAT = new LeaseIdFormat("rl1", 8192);
    static final LeaseIdFormat READ_FORMAT = new LeaseIdFormat("rr1", 8192);
    static final LeaseIdFormat PERMIT_FORMAT = new LeaseIdFormat("rp1", 8192);

    record Parsed(String lock, String secret, Kind kind) {
        Parsed(String lock, String secret) {
            this(lock, secret, Kind.WRITE);
        }

        /** A permit's slot: the decimal after its lock's last '/'. */
        int slot() {
            return Integer.parseInt(lock.substring(lock.lastIndexOf('/') + 1));
        }

        /** A permit's semaphore: its lock without the slot. */
        String semaphore() {
            return lock.substring(0, lock.lastIndexOf('/'));
        }
    }

    private LeaseIds() { }

    static String format(Kind kind, String lock, String secret) {
        return switch (kind) {
            case WRITE -> FORMAT.format(lock, secret);
            case READ -> READ_FORMAT.format(lock, secret);
            case PERMIT -> PERMIT_FORMAT.format(lock, secret);
        };
    }

    /** Empty for anything that is not an id this issuer could have made. */
    static Optional<Parsed> parse(String leaseId) {
        if (leaseId == null || leaseId.length() < 4) {
            return Optional.empty();
        }
        return switch (leaseId.substring(0, 4)) {
            case "rl1." -> FORMAT.parse(leaseId).map(id -> new Parsed(id.subject(), id.secret(), Kind.WRITE));
            case "rr1." -> READ_FORMAT.parse(leaseId).map(id -> new Parsed(id.subject(), id.secret(), Kind.READ));
            case "rp1." -> PERMIT_FORMAT.parse(leaseId).filter(id -> isSlotLock(id.subject()))
                    .map(id -> new Parsed(id.subject(), id.secret(), Kind.PERMIT));
            default -> Optional.empty();
        };
    }

    /** {@code name/k}: a non-empty name, then 0 or a decimal without leading zeros below 1000. */
    private static boolean isSlotLock(String lock) {
        int slash = lock.lastIndexOf('/');
        String slot = lock.substring(slash + 1);
        return slash > 0 && !slot.isEmpty() && slot.length() <= 3 && slot.chars().allMatch(c -> c >= '0' && c <= '9')
                && (slot.length() == 1 || slot.charAt(0) != '0');
    }
}
