package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases this issuer granted, and their expiry by this issuer's monotonic clock.
 *
 * <p>The granting issuer alone deletes an expired lease node: its timer fires at the expiry it
 * knows, re-reads the node (another instance may have renewed it with setData) and deletes it only
 * at the version it read, so a renew racing the expiry wins or loses cleanly, never half.
 *
 * <p>Why elapsed time and the node's version, not the node's {@code expiresAt}: that is epoch
 * milliseconds by the wall clock of whichever gateway wrote it. Compared with this host's wall
 * clock, a renew through a gateway whose clock is behind looked expired here and was deleted while
 * live (a second holder), and a step back of this clock held a lock for the step's length. So a
 * lease ends when its ttl has passed, on this process's {@link System#nanoTime()}, since the
 * last write of its node this issuer knows of: its grant or renew here, or a changed version seen
 * here (a renew elsewhere, counted from when it was seen: never earlier than the renew).
 */
final class HeldLeases {

    private static final Logger LOG = LoggerFactory.getLogger(HeldLeases.class);
    private static final long RETRY_MS = 250;

    private final CuratorFramework client;
    private final AsyncZk zk;
    private final ScheduledExecutorService scheduler;
    private final Map<String, Held> byPath = new ConcurrentHashMap<>();
    /** The same leases by id, so a release here finds its lease without parsing the id. */
    private final Map<String, String> pathById = new ConcurrentHashMap<>();
    /** Told of each lease that ends here without a release (the issuer's listeners). */
    private final BiConsumer<Lease, LeaseEnd> onEnd;

    private static final class Held {
        volatile Lease lease;
        volatile ScheduledFuture<?> timer;
        /** The lease node's data version as last written or read here. */
        volatile int nodeVersion;
        /** When (System.nanoTime) its ttl has passed since the last write of its node known here. */
        volatile long dueNanos;
        final int lockVersion;
        final long lockDelayMs;

        Held(Lease lease, int nodeVersion, int lockVersion, long lockDelayMs, long ttlMs) {
            this.lease = lease;
            this.nodeVersion = nodeVersion;
            this.lockVersion = lockVersion;
            this.lockDelayMs = lockDelayMs;
            this.dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMs);
        }

        long remainingMs() {
            return TimeUnit.NANOSECONDS.toMillis(dueNanos - System.nanoTime());
        }
    }

    /**
     * What a release through the granting issuer needs without reading the lease node first.
     *
     * @param nodeVersion the lease node's data version as this issuer knows it: a release deletes
     *                    at it, so a renew elsewhere (or an expiry) makes it fail rather than act on
     *                    stale knowledge
     * @param lockVersion the lock node's version after a one-round-trip grant, else -1
     */
    record Releasable(Lease lease, String path, int nodeVersion, int lockVersion) { }

    HeldLeases(CuratorFramework client, AsyncZk zk, ScheduledExecutorService scheduler, BiConsumer<Lease, LeaseEnd> onEnd) {
        this.client = client;
        this.zk = zk;
        this.scheduler = scheduler;
        this.onEnd = onEnd;
    }

    /**
     * @param nodeVersion the lease node's data version now
     * @param lockVersion the lock node's version after a one-round-trip grant, else -1
     * @param ttlMs       the lease's ttl, counted from now
     */
    void add(Lease lease, String path, int nodeVersion, int lockVersion, long lockDelayMs, long ttlMs) {
        Held held = new Held(lease, nodeVersion, lockVersion, lockDelayMs, ttlMs);
        byPath.put(path, held);
        pathById.put(lease.leaseId(), path);
        schedule(path, held, ttlMs);
    }

    /**
     * A lease granted here, with that id, without a lock-delay and not past its expiry; else empty.
     * Looked up by the whole id (path and secret), which only this issuer made: no parsing.
     */
    Optional<Releasable> releasable(String leaseId) {
        String path = pathById.get(leaseId);
        Held held = path == null ? null : byPath.get(path);
        if (held == null || held.lockDelayMs != 0 || !held.lease.leaseId().equals(leaseId) || held.remainingMs() <= 0) {
            return Optional.empty();
        }
        return Optional.of(new Releasable(held.lease, path, held.nodeVersion, held.lockVersion));
    }

    /** A renew through this issuer wrote the lease node: its ttl counts again from now. */
    void renewed(String path, int nodeVersion, long expiresAt, long ttlMs) {
        Held held = byPath.get(path);
        if (held != null) {
            held.dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMs);
            held.nodeVersion = nodeVersion;
            held.lease = held.lease.withExpiresAt(expiresAt);
        }
    }

    /** Released (here or elsewhere): no longer ours to expire, nobody to tell. */
    void forget(String path) {
        Held held = remove(path);
        if (held != null && held.timer != null) {
            held.timer.cancel(false);
        }
    }

    /** The session holding every lease is gone, and with it every lease node. */
    void sessionLost() {
        for (String path : new ArrayList<>(byPath.keySet())) {
            end(path, LeaseEnd.SESSION_LOST);
        }
    }

    /** Deletes every held lease node; the returned future ends when all answered or timed out. */
    CompletableFuture<Void> releaseAll() {
        List<CompletableFuture<?>> deletes = new ArrayList<>();
        for (String path : new ArrayList<>(byPath.keySet())) {
            forget(path);
            deletes.add(zk.call("delete " + path, cb -> client.delete().inBackground(cb).forPath(path)));
        }
        return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)).handle((v, e) -> null);
    }

    private void schedule(String path, Held held, long delayMs) {
        try {
            held.timer = scheduler.schedule(() -> check(path, held), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            if (byPath.remove(path, held)) { // issuer closed
                pathById.remove(held.lease.leaseId(), path);
            }
        }
    }

    private void check(String path, Held held) {
        if (byPath.get(path) != held) {
            return;
        }
        zk.call("read lease " + path, cb -> client.getData().inBackground(cb).forPath(path)).whenComplete((event, error) -> {
            if (error != null) {
                schedule(path, held, RETRY_MS);
                return;
            }
            Code code = AsyncZk.code(event);
            if (code == Code.NONODE) {
                forget(path);
                return;
            }
            Optional<LeaseNodeData> data = code == Code.OK ? LeaseNodeData.parse(event.getData()) : Optional.empty();
            if (data.isEmpty()) {
                schedule(path, held, RETRY_MS);
                return;
            }
            int version = event.getStat().getVersion();
            if (version != held.nodeVersion) { // renewed elsewhere since: its ttl counts from now
                held.dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(data.get().ttlMs());
                held.nodeVersion = version;
            }
            if (held.remainingMs() > 0) {
                held.lease = held.lease.withExpiresAt(data.get().expiresAt());
                schedule(path, held, held.remainingMs());
                return;
            }
            zk.call("expire " + path, cb -> client.delete().withVersion(event.getStat().getVersion())
                    .inBackground(cb).forPath(path)).whenComplete((deleted, failure) -> {
                        if (failure != null) {
                            schedule(path, held, RETRY_MS);
                        } else if (AsyncZk.code(deleted) == Code.OK) {
                            held.lease = held.lease.withExpiresAt(data.get().expiresAt());
                            end(path, LeaseEnd.EXPIRED);
                        } else if (AsyncZk.code(deleted) == Code.NONODE) {
                            forget(path);
                        } else {
                            // BADVERSION: renewed meanwhile; read again.
                            schedule(path, held, 0);
                        }
                    });
        });
    }

    private Held remove(String path) {
        Held held = byPath.remove(path);
        if (held != null) {
            pathById.remove(held.lease.leaseId(), path);
        }
        return held;
    }

    private void end(String path, LeaseEnd reason) {
        Held held = remove(path);
        if (held == null) {
            return;
        }
        if (held.timer != null) {
            held.timer.cancel(false);
        }
        Lease lease = held.lease;
        LOG.info("lease ended: lock={} token={} reason={}", lease.lock(), lease.token(), reason);
        onEnd.accept(lease, reason);
    }
}
