package io.fencegate.gateway.http;

import io.fencegate.gateway.GatewayLimits;
import io.fencegate.gateway.KeyShares;
import io.fencegate.gateway.auth.Principal;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.Map;

/**
 * What the gateway's callers share, counted per API key against {@link KeyShares}: lease watch
 * streams, the leases they watch, status streams, waiting acquires, live leases, requests in flight
 * and lately used lock names. One instance a
 * gateway; the routes take from it before they do any work and give back when done.
 */
final class TenantShares {
    private static final long STREAM_RETRY_AFTER_S = 5;
    private static final long WAITER_RETRY_AFTER_S = 1;
    private static final long REQUEST_RETRY_AFTER_S = 1;
    private static final long LOCK_NAME_RETRY_AFTER_S = 60;

    private final KeyShares shares;
    private final boolean authOn;
    private final ShareCounter watchStreams = new ShareCounter("lease watch streams", KeyShares.TOTAL_WATCH_STREAMS,
            STREAM_RETRY_AFTER_S);
    private final ShareCounter statusStreams = new ShareCounter("status streams", KeyShares.TOTAL_STATUS_STREAMS,
            STREAM_RETRY_AFTER_S);
    private final ShareCounter waiters = new ShareCounter("acquires waiting for a lock", KeyShares.TOTAL_WAITERS,
            WAITER_RETRY_AFTER_S);
    /** Bucket to the leases its streams watch, with how many streams watch each. */
    private final Map<String, Map<String, Integer>> watched = new HashMap<>();
    private final ShareCounter requests = new ShareCounter("requests in flight", KeyShares.TOTAL_REQUESTS,
            REQUEST_RETRY_AFTER_S);
    private final LiveLeases leases;
    private final LockNameShare lockNames;

    TenantShares(KeyShares shares, GatewayLimits limits, boolean authOn) {
        this.shares = shares;
        this.authOn = authOn;
        this.leases = new LiveLeases(shares.leases(), STREAM_RETRY_AFTER_S);
        this.lockNames = new LockNameShare(limits.lockNameBytes(), authOn ? shares.lockNameBytes() : limits.lockNameBytes(),
                limits.lockNameWindow(), LOCK_NAME_RETRY_AFTER_S);
    }

    /** The caller's bucket on a {@code /v1/*} route: its key's name, or null with auth off (no shares then). */
    String bucket(RoutingContext ctx) {
        return authOn ? Principal.of(ctx).name() : null;
    }

    /** A lease watch stream on {@code leaseId}: null when taken, else the refusal. Give back with {@link #endWatch}. */
    Problem startWatch(String bucket, String leaseId) {
        return startWatch(bucket, java.util.List.of(leaseId));
    }

    /**
     * One watch stream on every lease of {@code leaseIds} (a group's members: each is read, so each
     * counts among the key's watched leases): null when taken, else the refusal, and nothing is taken.
     */
    Problem startWatch(String bucket, java.util.List<String> leaseIds) {
        Problem refused = watchStreams.take(bucket, shares.watchStreams());
        if (refused != null || bucket == null) {
            return refused;
        }
        synchronized (watched) {
            Map<String, Integer> leasesOfBucket = watched.computeIfAbsent(bucket, b -> new HashMap<>());
            long added = leaseIds.stream().filter(id -> !leasesOfBucket.containsKey(id)).count();
            if (added > 0 && leasesOfBucket.size() + added > shares.watchedLeases()) {
                if (leasesOfBucket.isEmpty()) {
                    watched.remove(bucket);
                }
                watchStreams.give(bucket);
                return Problem.tooMany("this API key already watches " + shares.watchedLeases()
                        + " leases, its share of this gateway", STREAM_RETRY_AFTER_S);
            }
            leaseIds.forEach(id -> leasesOfBucket.merge(id, 1, Integer::sum));
        }
        return null;
    }

    void endWatch(String bucket, String leaseId) {
        endWatch(bucket, java.util.List.of(leaseId));
    }

    void endWatch(String bucket, java.util.List<String> leaseIds) {
        if (bucket != null) {
            synchronized (watched) {
                Map<String, Integer> leasesOfBucket = watched.get(bucket);
                if (leasesOfBucket != null) {
                    leaseIds.forEach(id -> leasesOfBucket.computeIfPresent(id, (k, n) -> n <= 1 ? null : n - 1));
                    if (leasesOfBucket.isEmpty()) {
                        watched.remove(bucket);
                    }
                }
            }
        }
        watchStreams.give(bucket);
    }

    /**
     * A status stream's bucket: a key's name, {@link ShareCounter#KEYLESS} for a caller without
     * one (auth on), null with auth off.
     */
    String statusBucket(java.util.Optional<Principal> caller) {
        return !authOn ? null : caller.map(Principal::name).orElse(ShareCounter.KEYLESS);
    }

    Problem startStatusStream(String bucket) {
        return statusStreams.take(bucket,
                ShareCounter.KEYLESS.equals(bucket) ? shares.keylessStatusStreams() : shares.statusStreams());
    }

    void endStatusStream(String bucket) {
        statusStreams.give(bucket);
    }

    /** An acquire that may wait for its lock. Give back with {@link #endWait}. */
    Problem startWait(String bucket) {
        return waiters.take(bucket, shares.waiters());
    }

    void endWait(String bucket) {
        waiters.give(bucket);
    }

    LiveLeases leases() {
        return leases;
    }

    /** Lock names lately used, for an acquire of {@code lock}: null when counted, else the refusal. */
    Problem useLockName(String bucket, String lock, long ttlMs) {
        return lockNames.admit(bucket, lock, ttlMs);
    }

    /**
     * A request in flight: {@code bucket} a key's name, {@link ShareCounter#KEYLESS} or null (auth
     * off, the total alone). Null when taken, else the refusal; give back with {@link #endRequest}.
     */
    Problem startRequest(String bucket) {
        return requests.take(bucket, ShareCounter.KEYLESS.equals(bucket) ? shares.keylessRequests() : shares.requests());
    }

    void endRequest(String bucket) {
        requests.give(bucket);
    }
}
