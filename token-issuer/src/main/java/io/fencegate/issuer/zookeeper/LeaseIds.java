package io.fencegate.issuer.zookeeper;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Lease ids: {@code zk1.<base64url(lease node path)>.<128-bit random secret, hex>}.
 *
 * <p>Why: the path lets any issuer instance on the ensemble find the lease node without shared
 * state (gateways scale out); the secret, stored in the node's data, makes the id unguessable,
 * so knowing a lock's name, or even its node path, is not enough to renew or release it.
 */
final class LeaseIds {

    private static final String VERSION = "zk1";
    private static final int SECRET_BYTES = 16;
    private static final int MAX_ID_CHARS = 16_384;
    private static final SecureRandom RANDOM = new SecureRandom();

    record Parsed(String path, String secret) { }

    private LeaseIds() { }

    static String newSecret() {
        byte[] bytes = new byte[SECRET_BYTES];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    static String format(String path, String secret) {
        return VERSION + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(path.getBytes(StandardCharsets.UTF_8)) + "." + secret;
    }

    /** Empty for anything that is not an id for a lease node under {@code locksPath}. */
    static Optional<Parsed> parse(String leaseId, String locksPath) {
        if (leaseId == null || leaseId.length() > MAX_ID_CHARS) {
            return Optional.empty();
        }
        String[] parts = leaseId.split("\\.", -1);
        if (parts.length != 3 || !parts[0].equals(VERSION) || parts[2].length() != SECRET_BYTES * 2) {
            return Optional.empty();
        }
        try {
            String path = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
            String parent = path.substring(0, Math.max(0, path.lastIndexOf('/')));
            boolean underLocks = parent.startsWith(locksPath + "/") && parent.indexOf('/', locksPath.length() + 1) < 0;
            if (!underLocks || !LockNodes.isLeaseNode(LockNodes.nameOf(path))) {
                return Optional.empty();
            }
            return Optional.of(new Parsed(path, parts[2]));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
