package io.fencegate.issuer.zookeeper;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
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
 * and no grant newer than that lease's has appeared. A newer grant (made through another issuer)
 * puts the lock back for another {@code idleFor}, counted from when this sweeper first saw it.
 * Why elapsed time on this process's monotonic clock: comparing a grant's ZooKeeper {@code ctime}
 * with this host's wall clock deleted fresh grants whenever the clock ran ahead, and their live
 * holders got 403. Only grants seen are deleted (a grant recorded on the lock node counts as seen
 * there); parents are deleted without force, and the lock node at the version read, so a lock
 * taken again meanwhile fails the delete ({@code NOTEMPTY}, {@code BADVERSION}) and keeps its nodes. Forgetting a
 * grant is safe: {@code wasGranted} then answers false, which refuses the writes of a holder whose
 * lease ended long ago (403 instead of 409).
 *
 * <p>A sweep runs only on a root confirmed to be in this issuer's token mode ({@link
 * TokenModeMarker}): a ZXID sweep on a CVERSION root would delete the token counters.
 *
 * <p>A lock released here in one transaction ({@link UncontendedGrant#release}, ZXID mode) is swept
 * in one transaction too: its grant node, its grant log and its lock node at the version that
 * release left. Any use of the lock since (a grant, a queued node, a mark, a grant logged through
 * another issuer) changed one of the three, so the transaction fails whole and the lock is swept
 * the careful way above. One request a lock instead of five: a gateway that touches thousands of
 * new items a second keeps up.
 *
 * <p>Best effort and bounded: at most {@link #MAX_PENDING} locks wait for a sweep (the oldest is
 * dropped past that, and stays; about 150 bytes of heap each while they wait); a lock still pending
 * when the issuer closes stays too. Due locks are swept {@link #IN_FLIGHT} at a time until none is
 * left due, so the rate follows ZooKeeper, not the check interval.
 */
final class IdleLockSweeper {
    private static final Logger LOG = LoggerFactory.getLogger(IdleLockSweeper.class);
    static final int MAX_PENDING = 1_000_000;
    /** Sweeps at once, so a burst of due locks never floods the ensemble. */
    private static final int IN_FLIGHT = 8;

    /**
     * A lock waiting for its sweep.
     *
     * @param atNanos       when it is due, by {@link System#nanoTime()}
     * @param idleToken     the newest grant known to have been idle since the entry was made
     * @param releasedInOne released here in one transaction: the lock node was left empty at
     *                      {@link UncontendedGrant#EMPTY_AFTER_RELEASE}, its grant logged as a node
     */
    private record Due(long atNanos, long idleToken, boolean releasedInOne) {
        String idleGrant() {
            return LockNodes.grantName(idleToken);
        }
    }

    private final IssuerParts parts;
    private final TokenModeMarker modeMarker;
    private final long idleForNanos;
    /** Lock to its sweep, in the order they came due. */
    private final Map<String, Due> pending = new LinkedHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean();

    IdleLockSweeper(IssuerParts parts, TokenModeMarker modeMarker, Duration idleFor) {
        this.parts = parts;
        this.modeMarker = modeMarker;
        this.idleForNanos = idleFor.toNanos();
        long every = Math.max(50, Math.min(idleFor.toMillis() / 10, TimeUnit.MINUTES.toMillis(1)));
        try {
            parts.scheduler().scheduleWithFixedDelay(this::run, every, every, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // issuer closed while starting
        }
    }

    /** The lease with {@code token} on {@code lock} ended: sweep the lock once it has been idle long enough. */
    void leaseEnded(String lock, long token) {
        leaseEnded(lock, token, false);
    }

    /** ... {@code releasedInOne}: by {@link UncontendedGrant#release}, in ZXID mode. */
    void leaseEnded(String lock, long token, boolean releasedInOne) {
        synchronized (pending) {
            pending.remove(lock); // re-inserted last: due later than every lock already waiting
            pending.put(lock, new Due(System.nanoTime() + idleForNanos, token, releasedInOne));
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
        AtomicInteger workers = new AtomicInteger(IN_FLIGHT);
        for (int i = 0; i < IN_FLIGHT; i++) {
            sweepNext(workers);
        }
    }

    /** One of {@link #IN_FLIGHT} workers: sweeps due locks one after another until none is due. */
    private void sweepNext(AtomicInteger workers) {
        Map.Entry<String, Due> next = takeDue();
        if (next == null) {
            if (workers.decrementAndGet() == 0) {
                running.set(false);
            }
            return;
        }
        String lock = next.getKey();
        sweep(lock, next.getValue()).exceptionally(e -> {
            LOG.debug("sweeping idle lock {} failed; it keeps its nodes for now: {}", lock, e.toString());
            return null;
        }).whenComplete((v, e) -> {
            try {
                // On the scheduler, never inline: a sweep answered at once must not deepen the stack.
                parts.scheduler().execute(() -> sweepNext(workers));
            } catch (RejectedExecutionException closed) {
                // issuer closed: what is still pending keeps its nodes
            }
        });
    }

    /** The oldest pending lock if it is due, taken out; else null. */
    private Map.Entry<String, Due> takeDue() {
        synchronized (pending) {
            Iterator<Map.Entry<String, Due>> it = pending.entrySet().iterator();
            if (!it.hasNext()) {
                return null;
            }
            Map.Entry<String, Due> next = it.next();
            if (next.getValue().atNanos() - System.nanoTime() > 0) {
                return null;
            }
            it.remove();
            return Map.entry(next.getKey(), next.getValue());
        }
    }

    private CompletableFuture<Void> sweep(String lock, Due due) {
        if (due.releasedInOne() && parts.mode() == TokenMode.ZXID) {
            // Fails on a root pinned to the other mode: nothing is deleted then.
            return modeMarker.ensure().thenCompose(modeOk -> sweepInOneTransaction(lock, due))
                    .thenCompose(swept -> swept ? done() : sweepCarefully(lock, due));
        }
        return sweepCarefully(lock, due);
    }

    /** True if the grant node, the grant log and the lock node (at the version the release left) were deleted. */
    private CompletableFuture<Boolean> sweepInOneTransaction(String lock, Due due) {
        List<CuratorOp> ops;
        try {
            var op = parts.client().transactionOp();
            ops = List.of(op.delete().forPath(parts.nodes().grantPath(lock, due.idleToken())),
                    op.delete().forPath(parts.nodes().grantsPath(lock)),
                    op.delete().withVersion(UncontendedGrant.EMPTY_AFTER_RELEASE).forPath(parts.nodes().lockPath(lock)));
        } catch (Exception e) {
            return CompletableFuture.completedFuture(false);
        }
        return parts.zk().call("sweep " + lock, cb -> parts.client().transaction().inBackground(cb).forOperations(ops))
                .thenApply(event -> AsyncZk.code(event) == Code.OK);
    }

    private CompletableFuture<Void> sweepCarefully(String lock, Due due) {
        String lockPath = parts.nodes().lockPath(lock);
        // Fails on a root pinned to the other mode: nothing is deleted then.
        return modeMarker.ensure().thenCompose(modeOk -> readLock(lockPath)).thenCompose(read -> {
            Stat stat = read == null ? null : read.getStat();
            if (stat != null && stat.getNumChildren() > 0) {
                return done(); // in use: its lease's end brings it back here
            }
            if (stat != null && GrantLog.isGrantAtMzxid(read.getData())
                    && LockNodes.grantName(stat.getMzxid()).compareTo(due.idleGrant()) > 0) {
                seenNewGrant(lock, stat.getMzxid()); // a newer grant, recorded on the lock node
                return done();
            }
            // At the version read: a lock node granted again meanwhile is not deleted.
            return forgetGrants(lock, due).thenCompose(forgotten -> forgotten && stat != null && parts.mode() == TokenMode.ZXID
                    ? deleteIfEmpty(lockPath, stat.getVersion()) : done());
        });
    }

    /** The lock node's data and stat, or null if it is gone. */
    private CompletableFuture<CuratorEvent> readLock(String lockPath) {
        return parts.zk().readIfExists("read " + lockPath, cb -> parts.client().getData().inBackground(cb).forPath(lockPath));
    }

    /** Deletes the lock's grants unless one is newer than the grant known idle; true if none is left. */
    private CompletableFuture<Boolean> forgetGrants(String lock, Due due) {
        String grantsPath = parts.nodes().grantsPath(lock);
        return children(grantsPath).thenCompose(grants -> {
            if (grants == null || grants.isEmpty()) {
                return deleteIfEmpty(grantsPath).thenApply(v -> true);
            }
            String newest = grants.stream().max(String::compareTo).orElseThrow(); // zero-padded tokens
            if (newest.compareTo(due.idleGrant()) > 0) {
                seenNewGrant(lock, Long.parseLong(newest)); // granted again meanwhile, through another issuer
                return CompletableFuture.completedFuture(false);
            }
            CompletableFuture<?>[] deletes = grants.stream()
                    .map(g -> deleteIfEmpty(grantsPath + "/" + g))
                    .toArray(CompletableFuture[]::new);
            return CompletableFuture.allOf(deletes)
                    .thenCompose(v -> deleteIfEmpty(grantsPath))
                    .thenApply(v -> true);
        });
    }

    /** Comes back {@code idleFor} from now: if {@code newest} is still the newest grant then, it has been idle that long. */
    private void seenNewGrant(String lock, long newest) {
        synchronized (pending) {
            pending.putIfAbsent(lock, new Due(System.nanoTime() + idleForNanos, newest, false));
        }
    }

    /** The children, or null if the node does not exist. */
    private CompletableFuture<List<String>> children(String path) {
        return parts.zk().readIfExists("list " + path, cb -> parts.client().getChildren().inBackground(cb).forPath(path))
                .thenApply(event -> event == null ? null : event.getChildren());
    }

    /** Deletes a node unless it has children (or is gone already): never forces anything. */
    private CompletableFuture<Void> deleteIfEmpty(String path) {
        return deleteIfEmpty(path, -1);
    }

    /** ... and, unless {@code version} is -1, only at that version. */
    private CompletableFuture<Void> deleteIfEmpty(String path, int version) {
        return parts.zk().call("delete " + path, cb -> parts.client().delete().withVersion(version).inBackground(cb).forPath(path))
                .thenApply(IdleLockSweeper::ignoreBenign);
    }

    private static Void ignoreBenign(CuratorEvent event) {
        Code code = AsyncZk.code(event);
        if (code != Code.OK && code != Code.NONODE && code != Code.NOTEMPTY && code != Code.BADVERSION) {
            throw AsyncZk.unexpected("delete", event);
        }
        return null;
    }

    private static CompletableFuture<Void> done() {
        return CompletableFuture.completedFuture(null);
    }
}
