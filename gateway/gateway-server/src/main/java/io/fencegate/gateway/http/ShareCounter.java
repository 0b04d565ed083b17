package io.fencegate.gateway.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The units of one shared resource in use (streams, waiting acquires): a gateway-wide total, and
 * each caller bucket's share of it ({@code KeyShares}). A bucket is an API key's name, {@link
 * #KEYLESS} for callers without a key, or null where no share applies (auth off: one caller).
 */
final class ShareCounter {
    /** The bucket of callers without a key; never a key's name (names are checked non-blank text). */
    static final String KEYLESS = "\0keyless";

    private final String what;
    private final int total;
    private final long retryAfterSeconds;
    private final AtomicInteger all = new AtomicInteger();
    private final Map<String, Integer> byBucket = new ConcurrentHashMap<>();

    /**
     * @param what how answers name the resource ("lease watch streams")
     * @param total the gateway-wide bound
     * @param retryAfterSeconds what a refusal's {@code Retry-After} says
     */
    ShareCounter(String what, int total, long retryAfterSeconds) {
        this.what = what;
        this.total = total;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /**
     * Takes one unit for {@code bucket}, whose share is {@code share}. Answers null when taken;
     * otherwise the refusal to answer with (429 for the bucket's share, 503 for the total), and
     * nothing was taken.
     */
    Problem take(String bucket, int share) {
        if (all.incrementAndGet() > total) {
            all.decrementAndGet();
            return Problem.unavailable("this gateway already serves " + total + " " + what).retryAfter(retryAfterSeconds);
        }
        if (bucket == null) {
            return null;
        }
        boolean[] over = {false};
        byBucket.compute(bucket, (b, n) -> {
            int held = n == null ? 0 : n;
            if (held >= share) {
                over[0] = true;
                return n;
            }
            return held + 1;
        });
        if (over[0]) {
            all.decrementAndGet();
            return Problem.tooMany((bucket.equals(KEYLESS) ? "callers without an API key" : "this API key")
                    + " already hold " + share + " " + what + ", their share of this gateway", retryAfterSeconds);
        }
        return null;
    }

    /** Gives back a unit {@link #take} gave {@code bucket}. */
    void give(String bucket) {
        all.decrementAndGet();
        if (bucket != null) {
            byBucket.computeIfPresent(bucket, (b, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** Units in use, by everyone. */
    int inUse() {
        return all.get();
    }
}
