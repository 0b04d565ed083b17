package io.fencegate.gateway.http;

import io.fencegate.issuer.Lease;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live leases each API key holds through this gateway, for its share ({@code KeyShares#leases}):
 * a lease counts from its grant until it is released here, or until the expiry this gateway last
 * saw passes (a renew or release through another gateway is not seen here; nor is a lease's early
 * end, which is rare). Every lease is a ZooKeeper node or a Redis key, a timer and a grant record;
 * without a share one key could fill the issuer with leases on locks of its own.
 */
final class LiveLeases {
    private final int share;
    private final long retryAfterSeconds;
    private final Map<String, Held> byBucket = new ConcurrentHashMap<>();
    /** Lease id to the bucket holding it. */
    private final Map<String, String> bucketOf = new ConcurrentHashMap<>();

    /** One bucket's leases: asked for and not yet answered, and granted with their expiry. */
    private static final class Held {
        int pending;
        final Map<String, Long> live = new HashMap<>();
    }

    LiveLeases(int share, long retryAfterSeconds) {
        this.share = share;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** Makes room for a lease about to be asked for: null when made, else the 429. */
    Problem reserve(String bucket) {
        return reserve(bucket, 1);
    }

    /**
     * Makes room for {@code count} leases about to be asked for together (a group counts every
     * member): null when made for all, else the 429 and none is reserved.
     */
    Problem reserve(String bucket, int count) {
        if (bucket == null) {
            return null;
        }
        Held held = byBucket.computeIfAbsent(bucket, b -> new Held());
        synchronized (held) {
            if (held.pending + held.live.size() + count > share) {
                long now = System.currentTimeMillis();
                held.live.entrySet().removeIf(e -> {
                    boolean expired = e.getValue() <= now;
                    if (expired) {
                        bucketOf.remove(e.getKey());
                    }
                    return expired;
                });
            }
            if (held.pending + held.live.size() + count > share) {
                return Problem.tooMany("this API key already holds " + share
                        + " live leases granted through this gateway, its share"
                        + (count > 1 ? " (a group counts each of its " + count + " leases)" : ""), retryAfterSeconds);
            }
            held.pending += count;
        }
        return null;
    }

    /** The reserved lease was granted ({@code lease} non-null) or not (null). */
    void answered(String bucket, Lease lease) {
        answered(bucket, 1, lease == null ? java.util.List.of() : java.util.List.of(lease));
    }

    /** The {@code count} leases reserved together were granted ({@code granted}, all of them) or not (empty). */
    void answered(String bucket, int count, java.util.List<Lease> granted) {
        if (bucket == null) {
            return;
        }
        Held held = byBucket.get(bucket);
        synchronized (held) {
            held.pending -= count;
            for (Lease lease : granted) {
                held.live.put(lease.leaseId(), lease.expiresAt());
                bucketOf.put(lease.leaseId(), bucket);
            }
        }
    }

    void renewed(String leaseId, long expiresAt) {
        Held held = heldOf(leaseId);
        if (held != null) {
            synchronized (held) {
                held.live.computeIfPresent(leaseId, (id, old) -> expiresAt);
            }
        }
    }

    /** Released through this gateway, or found gone. */
    void ended(String leaseId) {
        Held held = heldOf(leaseId);
        if (held != null) {
            synchronized (held) {
                held.live.remove(leaseId);
            }
            bucketOf.remove(leaseId);
        }
    }

    private Held heldOf(String leaseId) {
        String bucket = bucketOf.get(leaseId);
        return bucket == null ? null : byBucket.get(bucket);
    }
}
