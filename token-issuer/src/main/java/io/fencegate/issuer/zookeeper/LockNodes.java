package io.fencegate.issuer.zookeeper;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * The znode layout under the issuer's root.
 *
 * <pre>
 * root/locks/&lt;encoded lock&gt;/_c_&lt;uuid&gt;-lease-0000000042   EPHEMERAL_SEQUENTIAL, one per holder or waiter
 * root/grants/&lt;encoded lock&gt;/0000000004294967301           PERSISTENT, one per granted token
 * </pre>
 *
 * A lock name may contain '/', any Unicode and be kilobytes long, so it becomes one node name:
 * base64url of its UTF-8 bytes (no '/', never "." or "..", no characters ZooKeeper refuses).
 */
final class LockNodes {

    /** Lock names longer than this (in UTF-8 bytes) are refused: ids and paths must stay small. */
    static final int MAX_LOCK_BYTES = 4096;
    static final String LEASE_PREFIX = "lease-";
    private static final int SEQUENCE_DIGITS = 10;

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

    String grantsPath(String lock) {
        return root + "/grants/" + encode(lock);
    }

    String grantPath(String lock, long token) {
        return grantsPath(lock) + "/" + grantName(token);
    }

    /** A grant's node name: zero-padded, so names sort like their tokens. */
    static String grantName(long token) {
        return String.format("%019d", token);
    }

    /** Checks a lock name; the message says what is wrong. */
    static void validate(String lock) {
        if (lock == null || lock.isEmpty()) {
            throw new IllegalArgumentException("lock must be a non-empty string");
        }
        if (utf8(lock).length > MAX_LOCK_BYTES) {
            throw new IllegalArgumentException("lock must be at most " + MAX_LOCK_BYTES + " UTF-8 bytes");
        }
    }

    static String encode(String lock) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(utf8(lock));
    }

    private static byte[] utf8(String lock) {
        try {
            // Strict: a lone surrogate would otherwise become '?' and two names would share a lock.
            ByteBuffer bytes = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(lock));
            byte[] out = new byte[bytes.remaining()];
            bytes.get(out);
            return out;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("lock must be valid Unicode (no lone surrogates)", e);
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
