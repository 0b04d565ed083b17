package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.backend.LeaseIdFormat;
import java.util.Optional;

/**
 * Lease ids: {@code zk1.<base64url(lease node path)>.<128-bit random secret, hex>}
 * ({@link LeaseIdFormat}). The path lets any issuer instance on the ensemble find the lease node;
 * the secret is stored in the node's data.
 */
final class LeaseIds {

    /** Room for a long root and a 4 KiB lock name, base64url-encoded in the path. */
    static final LeaseIdFormat FORMAT = new LeaseIdFormat("zk1", 16_384);

    record Parsed(String path, String secret) { }

    private LeaseIds() { }

    /** Empty for anything that is not an id for a lease node under {@code locksPath}. */
    static Optional<Parsed> parse(String leaseId, String locksPath) {
        return FORMAT.parse(leaseId)
                .filter(id -> isLeaseNodeUnder(id.subject(), locksPath))
                .map(id -> new Parsed(id.subject(), id.secret()));
    }

    /** A lease node's path is exactly {@code locksPath/<lock node>/<lease node>}. */
    private static boolean isLeaseNodeUnder(String path, String locksPath) {
        String parent = path.substring(0, Math.max(0, path.lastIndexOf('/')));
        boolean underLocks = parent.startsWith(locksPath + "/") && parent.indexOf('/', locksPath.length() + 1) < 0;
        return underLocks && LockNodes.isLeaseNode(LockNodes.nameOf(path));
    }
}
