package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LockNames;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * The znode layout under the issuer's root.
 *
 * <pre>
 * root/locks/&lt;encoded lock&gt;                                PERSISTENT; data: a lock-delay mark, or a grant ({@link GrantLog})
 * root/locks/&lt;encoded lock&gt;/_c_&lt;uuid&gt;-lease-0000000042   EPHEMERAL_SEQUENTIAL, one per holder or waiter
 *                                   ...-read-lease-0000000043   the same for a read lease ({@link LeaseMode#READ})
 *                                 ...-permit-lease-0000000044   the same for a semaphore's permit (a write lease on a slot's lock)
 * root/grants/&lt;encoded lock&gt;/0000000004294967301           PERSISTENT, one per granted token; data: "read" for a read grant
 * root/semaphores/&lt;encoded semaphore&gt;                      PERSISTENT; data: its permit count ({@link PermitAcquisition})
 * root/semaphores/&lt;encoded semaphore&gt;/_c_&lt;uuid&gt;-wait-0000000007  EPHEMERAL_SEQUENTIAL, its FIFO line of permit acquires
 * </pre>
 *
 * Why the mode and the permit are in the lease node's name (every name ends in {@code lease-} and the
 * sequence, so every part that reads a queue sees them as lease nodes): a queue listing tells a
 * reader which nodes are writers without a read, a lease id (its path) tells any instance what it
 * renews, and an issuer that knows no read leases sees a reader as an exclusive holder: safe.
 *
 * A lock name ({@link LockNames}) may contain '/', any Unicode and be 4 KiB long, so it becomes one node name:
 * base64url of its UTF-8 bytes (no '/', never "." or "..", no characters ZooKeeper refuses).
 */
final class LockNodes {

    static final String LEASE_PREFIX = "lease-";
    private static final String READ_MARK = "read-";
    private static final String PERMIT_MARK = "permit-";
    private static final int SEQUENCE_DIGITS = 10;
    private static final int GRANT_DIGITS = 19;

    private final String root;

    LockNodes(String root) {
        this.root = root;
    }

    String root() {
        return root;
    }

    String locksPath() {
        return root + "/locks";
    }

    String lockPath(String lock) {
        return locksPath() + "/" + encode(lock);
    }

    String leasePathPrefix(String lock) {
        return lockPath(lock) + "/" + LEASE_PREFIX;
    }

    /** The lease node prefix of a lease in {@code mode}; {@code permit}: a semaphore's permit. */
    String leasePathPrefix(String lock, LeaseMode mode, boolean permit) {
        return lockPath(lock) + "/" + leaseNodePrefix(mode, permit);
    }

    static String leaseNodePrefix(LeaseMode mode, boolean permit) {
        return (mode == LeaseMode.READ ? READ_MARK : permit ? PERMIT_MARK : "") + LEASE_PREFIX;
    }

    /** The mode a lease node's name says ({@link #isLeaseNode} holds). */
    static LeaseMode modeOf(String leaseNodeName) {
        return marked(leaseNodeName, READ_MARK) ? LeaseMode.READ : LeaseMode.WRITE;
    }

    /** Whether a lease node's name says it is a semaphore's permit. */
    static boolean isPermit(String leaseNodeName) {
        return marked(leaseNodeName, PERMIT_MARK);
    }

    /** A write node's name has the protected id's last hex digits and '-' there, which no mark is. */
    private static boolean marked(String name, String mark) {
        int at = name.length() - SEQUENCE_DIGITS - LEASE_PREFIX.length() - mark.length();
        return at >= 0 && name.startsWith(mark, at);
    }

    String semaphoresPath() {
        return root + "/semaphores";
    }

    String semaphorePath(String semaphore) {
        return semaphoresPath() + "/" + encode(semaphore);
    }

    String grantsPath(String lock) {
        return root + "/grants/" + encode(lock);
    }

    String grantPath(String lock, long token) {
        return grantsPath(lock) + "/" + grantName(token);
    }

    /**
     * A grant's node name: zero-padded to 19 digits, so names sort like their tokens. Byte for byte
     * {@code String.format("%019d", token)} (the layout other issuers read), without a Formatter:
     * this runs on every release, and the Formatter was a sixth of an issuer's CPU per lease.
     */
    static String grantName(long token) {
        if (token < 0) {
            return String.format("%019d", token); // never a token; kept exact anyway
        }
        String digits = Long.toString(token);
        return digits.length() >= GRANT_DIGITS ? digits : "0".repeat(GRANT_DIGITS - digits.length()) + digits;
    }

    /** Lock names are checked by {@link LockNames} before they get here. */
    static String encode(String lock) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(LockNames.utf8(lock));
    }

    /** The lock a lock node's name encodes; empty for a name {@link #encode} never makes. */
    static java.util.Optional<String> decode(String name) {
        try {
            String lock = new String(Base64.getUrlDecoder().decode(name), java.nio.charset.StandardCharsets.UTF_8);
            return lock.isEmpty() || !encode(lock).equals(name) ? java.util.Optional.empty() : java.util.Optional.of(lock);
        } catch (IllegalArgumentException e) {
            return java.util.Optional.empty();
        }
    }

    static boolean isLeaseNode(String name) {
        int at = name.lastIndexOf(LEASE_PREFIX);
        return at >= 0 && name.length() - at - LEASE_PREFIX.length() == SEQUENCE_DIGITS;
    }

    /** The sequential suffix ZooKeeper appended (the parent's cversion at creation). */
    static long sequenceOf(String nodeName) {
        return Long.parseLong(nodeName.substring(nodeName.length() - SEQUENCE_DIGITS));
    }

    static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The child whose name carries {@code protectedId} (Curator's protected-name format). */
    static java.util.Optional<String> withProtectedId(List<String> children, String protectedId) {
        return children.stream()
                .filter(name -> org.apache.curator.framework.imps.ProtectedUtils.extractProtectedId(name)
                        .filter(protectedId::equals).isPresent())
                .findFirst();
    }

    /** Lease nodes among {@code children}, in queue order (lowest sequence first). */
    static List<String> queue(List<String> children) {
        List<String> leases = new ArrayList<>(children.size());
        for (String child : children) {
            if (isLeaseNode(child)) {
                leases.add(child);
            }
        }
        leases.sort(Comparator.comparingLong(LockNodes::sequenceOf));
        return leases;
    }
}
