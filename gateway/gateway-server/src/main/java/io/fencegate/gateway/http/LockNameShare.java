package io.fencegate.gateway.http;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lock names this gateway's callers have lately used, in bytes, for their bound
 * ({@code limits.lockNameBytes}) and each API key's share of it ({@code limits.perKey.lockNameBytes}).
 *
 * <p>Why: a lock leaves state in the issuer after its lease ends (on ZooKeeper its node stays until
 * the idle sweep, {@code forgetIdleLocksAfter}, 10 minutes by default; in cversion mode for ever),
 * and a ZooKeeper listing reads every lock name in one reply (ZooKeeper has no paged listing). With
 * no bound, one key's many long names made that reply too large for every key's listing. A name
 * counts from an acquire of it through this gateway until {@code ttl + window} after the last one
 * ({@code limits.lockNameWindow}, as long as the issuer keeps an idle lock); its cost is what it adds
 * to that reply, {@code 4 + 4/3 × its UTF-8 bytes} (base64 node name and length), at least
 * {@link #MIN_COST} so that the bound also bounds this table's own heap.
 *
 * <p>A name already counted costs nothing more, so a key's working set of locks is never refused
 * however often it is used. Past its share a key is answered 429, past the total 503, both with
 * {@code Retry-After}. With auth off (one caller) only the total applies.
 */
final class LockNameShare {
    /** The least a name costs: about this table's heap per name beside the name itself. */
    static final long MIN_COST = 64;
    /** Full sweeps of a bucket for expired names, at most this often (a key at its share asks every request). */
    private static final long SWEEP_EVERY_NANOS = 1_000_000_000L;
    private static final String NO_KEY = "\0all";

    private final long total;
    private final long share;
    private final long windowNanos;
    private final long retryAfterSeconds;
    private final Map<String, Bucket> buckets = new HashMap<>();
    private long used;

    /** One caller bucket's names, each with when it stops counting; oldest use first. */
    private static final class Bucket {
        final LinkedHashMap<String, Long> until = new LinkedHashMap<>();
        long bytes;
        long sweptAt;
    }

    LockNameShare(long total, long share, java.time.Duration window, long retryAfterSeconds) {
        this.total = total;
        this.share = share;
        this.windowNanos = window.toNanos();
        this.retryAfterSeconds = retryAfterSeconds;
    }

    static long cost(String lock) {
        int bytes = lock.getBytes(StandardCharsets.UTF_8).length;
        return Math.max(MIN_COST, 4 + (4L * bytes + 2) / 3);
    }

    /**
     * Counts {@code lock} for {@code bucket} (null: auth off) for an acquire with {@code ttlMs}:
     * null when counted (or already), else the refusal, and nothing was counted.
     */
    synchronized Problem admit(String bucket, String lock, long ttlMs) {
        long now = System.nanoTime();
        String key = bucket == null ? NO_KEY : bucket;
        Bucket b = buckets.computeIfAbsent(key, k -> new Bucket());
        long until = now + windowNanos + ttlMs * 1_000_000L;
        Long was = b.until.remove(lock);
        if (was != null) {
            b.until.put(lock, Math.max(was, until)); // last used: to the end of the order
            return null;
        }
        expire(b, now);
        long cost = cost(lock);
        if (bucket != null && b.bytes + cost > share) {
            expireAll(b, now);
        }
        if (used + cost > total) {
            expireEverywhere(now, b);
        }
        if (bucket != null && b.bytes + cost > share) {
            dropIfEmpty(key, b);
            return Problem.tooMany("this API key already used " + share + " bytes of lock names lately"
                    + " (limits.perKey.lockNameBytes), its share of this gateway; use fewer distinct locks,"
                    + " or wait for unused ones to be forgotten", retryAfterSeconds);
        }
        if (used + cost > total) {
            dropIfEmpty(key, b);
            return Problem.unavailable("this gateway's callers already used " + total
                    + " bytes of lock names lately (limits.lockNameBytes)").retryAfter(retryAfterSeconds);
        }
        b.until.put(lock, until);
        b.bytes += cost;
        used += cost;
        return null;
    }

    /** Bytes of names counted now, by everyone. */
    synchronized long used() {
        return used;
    }

    /** Drops the expired names at the head of the order (cheap: the usual case). */
    private void expire(Bucket b, long now) {
        Iterator<Map.Entry<String, Long>> it = b.until.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Long> e = it.next();
            if (e.getValue() - now > 0) {
                return;
            }
            forget(b, it, e.getKey());
        }
    }

    /** Drops every expired name, also behind a longer-lived one; at most once a second a bucket. */
    private void expireAll(Bucket b, long now) {
        if (b.sweptAt != 0 && now - b.sweptAt < SWEEP_EVERY_NANOS) {
            return;
        }
        b.sweptAt = now;
        Iterator<Map.Entry<String, Long>> it = b.until.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Long> e = it.next();
            if (e.getValue() - now <= 0) {
                forget(b, it, e.getKey());
            }
        }
    }

    /** ... in every bucket; empty ones go, but for {@code asking}'s, still in use. */
    private void expireEverywhere(long now, Bucket asking) {
        Iterator<Map.Entry<String, Bucket>> it = buckets.entrySet().iterator();
        while (it.hasNext()) {
            Bucket b = it.next().getValue();
            expireAll(b, now);
            if (b.until.isEmpty() && b != asking) {
                it.remove();
            }
        }
    }

    private void forget(Bucket b, Iterator<Map.Entry<String, Long>> it, String lock) {
        long cost = cost(lock);
        it.remove();
        b.bytes -= cost;
        used -= cost;
    }

    private void dropIfEmpty(String key, Bucket b) {
        if (b.until.isEmpty()) {
            buckets.remove(key);
        }
    }
}
