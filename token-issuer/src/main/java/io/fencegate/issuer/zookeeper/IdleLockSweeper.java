package io.fencegate.issuer.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what a lock leaves in ZooKeeper once nobody has used it for a while: its grant log and,
 * in {@link TokenMode#ZXID} mode, its lock node ({@link TokenMode#CVERSION} keeps the lock node:
 * its child version is the token counter). Without this, every lock ever taken (with the
 * gateway: every item ever written) stays in every ZooKeeper server's memory.
 *
 * <p>A lock is swept {@code idleFor} after a lease on it ended here (released through this
 * issuer, or expired or lost in its session), and only if by then no lease node is queued on it
 * and its newest grant is at least {@code idleFor} old. Only grants seen old are deleted; parents
 * are deleted without force, so a lock taken again meanwhile fails the delete ({@code NOTEMPTY})
 * and keeps its nodes. Forgetting a grant is safe: {@code wasGranted} then answers false, which
 * refuses the writes of a holder whose lease ended long ago (403 instead of 409).
 *
 * <p>Best effort and bounded: at most {@link #MAX_PENDING} locks wait for a sweep (the oldest is
 * dropped past that, and stays); a lock still pending when the issuer closes stays too.
 */
final class IdleLockSweeper {
    private static final Logger LOG = LoggerFactory.getLogger(IdleLockSweeper.class);
    static final int MAX_PENDING = 100_000;
    /** Sweeps per run, one after another, so a burst never floods the ensemble. */
    private static final int PER_RUN = 1000;

    private final IssuerParts parts;
    private final long idleForMs;
    /** Lock to the time its sweep is due, in the order they came due. */
    private final Map<String, Long> pending = new LinkedHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean();

    IdleLockSweeper(IssuerParts parts, Duration idleFor) {
        this.parts = parts;
        this.idleForMs = idleFor.toMillis();
        long every = Math.max(50, Math.min(idleForMs / 10, TimeUnit.MINUTES.toMillis(1)));
        try {
            parts.scheduler().scheduleWithFixedDelay(this::run, every, every, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // issuer closed while starting
        }
    }

    /** A lease on {@code lock} ended: sweep it once it has been idle long enough. */
    void leaseEnded(String lock) {
        synchronized (pending) {
            pending.remove(lock); // re-inserted last: due later than every lock already waiting
            pending.put(lock, System.currentTimeMillis() + idleForMs);
            if (pending.size() > MAX_PENDING) {
                Iterator<String> oldest = pending.keySet().iterator();
                LOG.debug("too many idle locks waiting for a sweep; {} keeps its nodes", oldest.next());
                oldest.remove();
            }
        }
    }

    private void run() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        List<String> due = takeDue();
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (String lock : due) {
            chain = chain.thenCompose(v -> sweep(lock).exceptionally(e -> {
                LOG.debug("sweeping idle lock {} failed; it keeps its nodes for now: {}", lock, e.toString());
                return null;
            }));
        }
        chain.whenComplete((v, e) -> running.set(false));
    }

    private List<String> takeDue() {
        long now = System.currentTimeMillis();
        List<String> due = new ArrayList<>();
        synchronized (pending) {
            Iterator<Map.Entry<String, Long>> it = pending.entrySet().iterator();
            while (it.hasNext() && due.size() < PER_RUN) {
                Map.Entry<String, Long> next = it.next();
                if (next.getValue() > now) {
                    break;
                }
                due.add(next.getKey());
                it.remove();
            }
        }
        return due;
    }

    private CompletableFuture<Void> sweep(String lock) {
        String lockPath = parts.nodes().lockPath(lock);
        return children(lockPath).thenCompose(queued -> {
            if (queued != null && !queued.isEmpty()) {
                return done(); // in use: its lease's end brings it back here
            }
            return forgetGrants(lock).thenCompose(forgotten -> forgotten && parts.mode() == TokenMode.ZXID
                    ? deleteIfEmpty(lockPath) : done());
        });
    }

    /** Deletes the lock's grants if the newest is old enough; true if none is left. */
    private CompletableFuture<Boolean> forgetGrants(String lock) {
        String grantsPath = parts.nodes().grantsPath(lock);
        return children(grantsPath).thenCompose(grants -> {
            if (grants == null || grants.isEmpty()) {
                return deleteIfEmpty(grantsPath).thenApply(v -> true);
            }
            String newest = grants.stream().max(String::compareTo).orElseThrow(); // zero-padded tokens
            return parts.zk().call("stat grant", cb -> parts.client().checkExists().inBackground(cb)
                    .forPath(grantsPath + "/" + newest)).thenCompose(stat -> {
                        long age = stat.getStat() == null ? idleForMs
                                : System.currentTimeMillis() - stat.getStat().getCtime();
                        if (age < idleForMs) {
                            leaseEndedAgo(lock, age); // granted again meanwhile
                            return CompletableFuture.completedFuture(false);
                        }
                        CompletableFuture<?>[] deletes = grants.stream()
                                .map(g -> deleteIfEmpty(grantsPath + "/" + g))
                                .toArray(CompletableFuture[]::new);
                        return CompletableFuture.allOf(deletes)
                                .thenCompose(v -> deleteIfEmpty(grantsPath))
                                .thenApply(v -> true);
                    });
        });
    }

    /** Comes back when the newest grant, {@code ageMs} old now, has been idle long enough. */
    private void leaseEndedAgo(String lock, long ageMs) {
        synchronized (pending) {
            pending.putIfAbsent(lock, System.currentTimeMillis() + idleForMs - ageMs);
        }
    }

    /** The children, or null if the node does not exist. */
    private CompletableFuture<List<String>> children(String path) {
        return parts.zk().call("list " + path, cb -> parts.client().getChildren().inBackground(cb).forPath(path))
                .thenApply(event -> {
                    Code code = AsyncZk.code(event);
                    if (code == Code.NONODE) {
                        return null;
                    }
                    if (code != Code.OK) {
                        throw AsyncZk.unexpected("list", event);
                    }
                    return event.getChildren();
                });
    }

    /** Deletes a node unless it has children (or is gone already): never forces anything. */
    private CompletableFuture<Void> deleteIfEmpty(String path) {
        return parts.zk().call("delete " + path, cb -> parts.client().delete().inBackground(cb).forPath(path))
                .thenApply(IdleLockSweeper::ignoreBenign);
    }

    private static Void ignoreBenign(CuratorEvent event) {
        Code code = AsyncZk.code(event);
        if (code != Code.OK && code != Code.NONODE && code != Code.NOTEMPTY) {
            throw AsyncZk.unexpected("delete", event);
        }
        return null;
    }

    private static CompletableFuture<Void> done() {
        return CompletableFuture.completedFuture(null);
    }
}
