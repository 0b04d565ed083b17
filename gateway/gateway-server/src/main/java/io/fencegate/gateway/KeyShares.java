package io.fencegate.gateway;

/**
 * Every bound on what API keys share on one gateway, in one place: the gateway-wide totals, and
 * each key's share of them (config {@code limits.perKey}). A key at its share is answered 429 with
 * {@code Retry-After}, and the other keys keep theirs; a full gateway answers 503, also with
 * {@code Retry-After}. Callers without a key (the status page's, when auth is on) share one bucket
 * of their own. With auth off (loopback only) there is one caller, and only the totals apply.
 *
 * <p>Why shares and not only totals: with totals alone one key that opens the most streams, or
 * watches the most leases, leaves none for anybody else (the totals were all there was).
 */
public final class KeyShares {
    /** Lease watch streams ({@code GET /v1/leases/{id}/events}) one gateway serves at once. */
    public static final int TOTAL_WATCH_STREAMS = 10_000;
    /** Leases one gateway watches at once: each is read every 100 ms, however many streams watch it. */
    public static final int TOTAL_WATCHED_LEASES = 1000;
    /** Status streams ({@code GET /ui/events}) one gateway serves at once: each probes the backends every second. */
    public static final int TOTAL_STATUS_STREAMS = 50;
    /**
     * Requests one gateway serves at once (lease watch and status streams aside: they have their
     * own totals); past it the next is answered 503 with {@code Retry-After}.
     */
    public static final int TOTAL_REQUESTS = 20_000;
    /** Acquires waiting for a lock ({@code waitMs > 0}) at once, on one gateway. */
    public static final int TOTAL_WAITERS = 10_000;

    private int watchStreams = 1000;
    private int watchedLeases = 100;
    private int statusStreams = 5;
    private int keylessStatusStreams = 10;
    private int waiters = 100;
    private int leases = 10_000;
    private long lockNameBytes = 4L << 20;
    private int requests = 512;
    private int keylessRequests = 64;

    /** One key's lease watch streams at once (default 1000). */
    public int watchStreams() { return watchStreams; }
    public KeyShares watchStreams(int n) { this.watchStreams = n; return this; }

    /** Distinct leases one key watches at once (default 100). */
    public int watchedLeases() { return watchedLeases; }
    public KeyShares watchedLeases(int n) { this.watchedLeases = n; return this; }

    /** One key's status streams at once (default 5). */
    public int statusStreams() { return statusStreams; }
    public KeyShares statusStreams(int n) { this.statusStreams = n; return this; }

    /** Status streams of every caller without a key, together (default 10). */
    public int keylessStatusStreams() { return keylessStatusStreams; }
    public KeyShares keylessStatusStreams(int n) { this.keylessStatusStreams = n; return this; }

    /** One key's acquires waiting for a lock at once (default 100). */
    public int waiters() { return waiters; }
    public KeyShares waiters(int n) { this.waiters = n; return this; }

    /**
     * Live leases one key holds that were granted through this gateway (default 10,000): counted
     * from the grant until released through this gateway, or until the expiry this gateway last
     * saw (a renew or release through another gateway is not seen here).
     */
    public int leases() { return leases; }
    public KeyShares leases(int n) { this.leases = n; return this; }

    /**
     * Bytes of lock names one key may have used lately through this gateway (default 4 MiB, a
     * quarter of the default {@code limits.lockNameBytes}; how a name counts:
     * {@link GatewayLimits#lockNameBytes}). About 2,900 names of 1 KiB, or 65,000 short ones, per
     * {@code limits.lockNameWindow}; a name the key already uses costs nothing more.
     */
    public long lockNameBytes() { return lockNameBytes; }
    public KeyShares lockNameBytes(long bytes) { this.lockNameBytes = bytes; return this; }

    /**
     * One key's requests in flight at once, from its head to its answer's end, whatever the number
     * of connections they come on (default 512); lease watch streams count in
     * {@link #watchStreams} instead. Past it the key's next request is answered 429 with
     * {@code Retry-After} before any work. Why: requests a key keeps open (slow bodies, waiting
     * acquires, slow stores) each hold a connection, a timer and buffers; without a share one key
     * that opens hundreds of connections holds what everybody shares.
     */
    public int requests() { return requests; }
    public KeyShares requests(int n) { this.requests = n; return this; }

    /**
     * Requests in flight of every caller without a key, together ({@code /health}, {@code /metrics},
     * {@code /openapi.yaml}, {@code /ui}; default 64). Status streams count in
     * {@link #keylessStatusStreams} instead.
     */
    public int keylessRequests() { return keylessRequests; }
    public KeyShares keylessRequests(int n) { this.keylessRequests = n; return this; }

    /** @throws IllegalArgumentException naming the setting, for a share under 1 or over its total */
    void validate() {
        check("watchStreams", watchStreams, TOTAL_WATCH_STREAMS);
        check("watchedLeases", watchedLeases, TOTAL_WATCHED_LEASES);
        check("statusStreams", statusStreams, TOTAL_STATUS_STREAMS);
        check("keylessStatusStreams", keylessStatusStreams, TOTAL_STATUS_STREAMS);
        check("waiters", waiters, TOTAL_WAITERS);
        check("leases", leases, Integer.MAX_VALUE);
        check("requests", requests, TOTAL_REQUESTS);
        check("keylessRequests", keylessRequests, TOTAL_REQUESTS);
    }

    /** ... and {@code lockNameBytes} against {@code limits.lockNameBytes}. */
    void validate(long totalLockNameBytes) {
        validate();
        if (lockNameBytes < MIN_LOCK_NAME_BYTES || lockNameBytes > totalLockNameBytes) {
            throw new IllegalArgumentException("limits.perKey.lockNameBytes must be from " + MIN_LOCK_NAME_BYTES
                    + " to limits.lockNameBytes (" + totalLockNameBytes + "), was " + lockNameBytes);
        }
    }

    /** The least share of lock-name bytes: a few names of the longest kind (4 KiB). */
    static final long MIN_LOCK_NAME_BYTES = 64 * 1024;

    private static void check(String name, int value, int total) {
        if (value < 1 || value > total) {
            throw new IllegalArgumentException("limits.perKey." + name + " must be from 1 to " + total + ", was " + value);
        }
    }
}
