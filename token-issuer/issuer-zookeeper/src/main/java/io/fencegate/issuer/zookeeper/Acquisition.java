package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.backend.LeaseIdFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquire: the queue-and-watch mechanics of Curator's {@code LockInternals}, asynchronous.
 *
 * <p>The caller's EPHEMERAL_SEQUENTIAL node joins the lock's queue; the lowest sequence holds the
 * lock (FIFO-fair). A waiter watches only its predecessor, so a release wakes one waiter, not a
 * herd. No thread waits: ZooKeeper's callbacks and watches drive the steps, and the wait deadline
 * is a scheduler task. Curator's own mutex blocks a thread per waiter and binds the lock to it,
 * and its parents are CONTAINER nodes; neither fits leases with tokens.
 *
 * <p>The policy sits behind an {@link AcquisitionDriver}, as Curator's sits behind its
 * {@code LockInternalsDriver}: whether to try the lock in one round trip first ({@link
 * UncontendedGrant}; whatever that cannot settle is left to the queue), and whether the head of
 * the queue may be granted now or waits out a lock-delay.
 *
 * <p>Read leases ({@link LeaseMode#READ}) follow Curator's {@code InterProcessReadWriteLock} in the
 * same queue: a read node is granted once no write node precedes it (and watches the nearest one
 * that does), a write node once no node of either mode precedes it (and watches its predecessor).
 * So readers share, a waiting writer holds back every reader that queued after it, and FIFO holds
 * across modes. Every node's token comes from its creation (czxid or sequence), so tokens follow
 * queue order: a writer's is above every grant it waited for, a reader's above every writer before
 * it. Readers granted together (a writer's release frees them all) rank among themselves by queue
 * order, whichever answer arrives first; only the order between writers and the leases they exclude
 * fences anything.
 */
final class Acquisition {

    private static final Logger log = LoggerFactory.getLogger(Acquisition.class);

    /**
     * Moves only forward, by compare-and-set: WAITING to GRANTING (one grant starts) or DONE (gave
     * up, failed, aborted); GRANTING to DONE. Never back to WAITING, so a watcher that fires late
     * can start no second grant.
     */
    private enum State { WAITING, GRANTING, DONE }

    private final IssuerParts parts;
    private final String lock;
    private final long ttlMs;
    private final long waitMs;
    private final long lockDelayMs;
    private final AcquisitionDriver driver;
    private final LeaseMode mode;
    /** A semaphore's permit: its slot ({@code lock} is that slot's lock); else {@link Lease#NO_SLOT}. */
    private final int slot;
    /** First the one-round-trip attempt; false: straight to the queue. */
    private final boolean triesUncontended;
    /** Names the lease node of the one-round-trip attempt, so a lost answer can be looked up. */
    private final String protectedId = java.util.UUID.randomUUID().toString();
    /** That attempt may have created a node whose path this acquire does not know (yet). */
    private volatile boolean attemptUnresolved;
    /** The expiry that attempt wrote into the lease node. */
    private volatile long writtenExpiresAt;
    /**
     * System.nanoTime() taken before the request that wrote our lease node's data (its expiry) was
     * sent: the one-trip transaction or the queue path's create. A waited grant rewrites the expiry.
     */
    private volatile long nodeDataAtNanos;
    /** The head of the queue found a lock-delay mark: a grant without a delay clears it. */
    private volatile boolean markSeen;
    private final String secret = LeaseIdFormat.newSecret();
    private final CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
    private final AtomicReference<State> state = new AtomicReference<>(State.WAITING);
    private final Stat createStat = new Stat();
    private volatile String ourPath;
    private volatile boolean waited;
    /** Set before this acquire reads ourPath to delete it; the create callback checks it after setting ourPath. */
    private volatile boolean abandoned;
    private volatile ScheduledFuture<?> deadline;
    /** The predecessor this waiter watches (or last watched); null before it waits. */
    private volatile String watched;

    Acquisition(IssuerParts parts, String lock, long ttlMs, long waitMs, long lockDelayMs, AcquisitionDriver driver) {
        this(parts, lock, ttlMs, waitMs, lockDelayMs, driver, LeaseMode.WRITE, Lease.NO_SLOT);
    }

    /** ... in {@code mode}; {@code slot}: the permit slot whose lock {@code lock} is, or {@link Lease#NO_SLOT}. */
    Acquisition(IssuerParts parts, String lock, long ttlMs, long waitMs, long lockDelayMs, AcquisitionDriver driver,
            LeaseMode mode, int slot) {
        this.parts = parts;
        this.lock = lock;
        this.ttlMs = ttlMs;
        this.waitMs = waitMs;
        this.lockDelayMs = lockDelayMs;
        this.driver = driver;
        this.mode = mode;
        this.slot = slot;
        this.triesUncontended = driver.triesUncontended(waitMs, lockDelayMs, mode);
    }

    /** The prefix of this acquire's lease node's name: it says the mode and whether it is a permit. */
    private String nodePrefix() {
        return LockNodes.leaseNodePrefix(mode, slot != Lease.NO_SLOT);
    }

    CompletableFuture<Optional<Lease>> start() {
        if (state.get() != State.WAITING) {
            return result; // aborted before it started
        }
        if (waitMs > 0) {
            try {
                deadline = parts.scheduler().schedule(this::giveUp, waitMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                fail(new IssuerUnavailableException("ZooKeeper lease issuer closed", e));
                return result;
            }
        }
        if (triesUncontended) {
            tryUncontended();
        } else {
            enterQueue(false);
        }
        return result;
    }

    /**
     * Joins the queue. A zero wait first looks, unless {@code looked} already: wait=0 on a held lock
     * is the common refusal, answered with one read, no node, no token spent.
     */
    private void enterQueue(boolean looked) {
        if (waitMs > 0 || looked) {
            create();
            return;
        }
        listQueue().whenComplete((queue, error) -> {
            if (error != null) {
                fail(error);
            } else if (blocker(LockNodes.queue(queue), Integer.MAX_VALUE) >= 0) {
                giveUp();
            } else {
                create();
            }
        });
    }

    /** The lock node's children; none if it does not exist. */
    private CompletableFuture<List<String>> listQueue() {
        String lockPath = parts.nodes().lockPath(lock);
        return parts.zk().call("list " + lockPath, cb -> parts.client().getChildren().inBackground(cb).forPath(lockPath))
                .thenApply(AcquisitionDriver::children);
    }

    private void tryUncontended() {
        nodeDataAtNanos = System.nanoTime();
        writtenExpiresAt = parts.clock().millis() + ttlMs;
        byte[] data = new LeaseNodeData(parts.mode(), secret, ttlMs, writtenExpiresAt, lock, lockDelayMs).toBytes();
        attemptUnresolved = true;
        CompletableFuture<UncontendedGrant.Outcome> answer = driver.attemptUncontended(lock, protectedId, data, nodePrefix());
        answer.thenAccept(late -> {
            if (abandoned) {
                driver.undo(lock, protectedId, late); // answered already (timed out, closed): a late node would block the queue
            }
        });
        parts.zk().bounded("grant " + lock, answer).whenComplete((outcome, error) -> {
            if (error != null) {
                fail(error);
            } else if (outcome instanceof UncontendedGrant.Granted granted) {
                if (adopt(granted.path())) {
                    createStat.setCzxid(granted.czxid());
                    grant(true, granted.lockVersion());
                }
            } else if (outcome instanceof UncontendedGrant.Queued queued) {
                if (adopt(queued.path())) {
                    checkPosition();
                }
            } else if (outcome instanceof UncontendedGrant.NotApplied) {
                attemptUnresolved = false;
                enterQueue(false);
            } else {
                recover();
            }
        });
    }

    /** Our node's path is known; false if this acquire was answered meanwhile (then the node goes). */
    private boolean adopt(String path) {
        ourPath = path;
        attemptUnresolved = false;
        if (abandoned) {
            parts.deleteGuaranteed(path);
            return false;
        }
        return true;
    }

    /**
     * The attempt's answer was a refusal or lost: the driver looks for our node. Found, the
     * transaction applied (all of it) and our node is queued, maybe first; not found, it did not,
     * and never will: join the queue as usual.
     */
    private void recover() {
        driver.findAttempt(lock, protectedId).whenComplete((found, error) -> {
            if (error != null) {
                fail(error);
            } else if (found.path().isPresent()) {
                if (adopt(found.path().get())) {
                    checkPosition();
                }
            } else {
                attemptUnresolved = false;
                if (waitMs == 0 && found.queued()) {
                    giveUp();
                } else {
                    enterQueue(true);
                }
            }
        });
    }

    /** Ends a pending acquire because the issuer closes. */
    void abort(Throwable why) {
        fail(why);
        // If it was granting, the grant sees the answered result and undoes itself.
        result.completeExceptionally(why);
    }

    boolean isDone() {
        return result.isDone();
    }

    private void create() {
        nodeDataAtNanos = System.nanoTime();
        byte[] data = new LeaseNodeData(parts.mode(), secret, ttlMs, parts.clock().millis() + ttlMs, lock, lockDelayMs).toBytes();
        String prefix = parts.nodes().leasePathPrefix(lock, mode, slot != Lease.NO_SLOT);
        // Why PERSISTENT parents (creatingParentsIfNeeded, never ...ContainersIfNeeded): the server
        // reaps empty CONTAINER nodes, and a re-created lock parent restarts its cversion and
        // sequence at 0, which would send CVERSION tokens backwards. Protection (a GUID in the
        // name) lets Curator find our node if the connection drops while the create is in flight.
        CompletableFuture<CuratorEvent> created = parts.zk().unbounded("create lease node", cb -> parts.client().create()
                .storingStatIn(createStat).creatingParentsIfNeeded().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).inBackground(cb).forPath(prefix, data));
        created.thenAccept(event -> {
            if (AsyncZk.code(event) == Code.OK && event.getName() != null) {
                ourPath = event.getName();
                if (abandoned) {
                    // Answered already (timed out, closed): a late node would block the queue.
                    parts.deleteGuaranteed(ourPath);
                }
            }
        });
        // Sent right behind the create, before its answer: the first look at the queue costs no
        // round trip of its own (listedBehind says when it may stand).
        CompletableFuture<CuratorEvent> listed = listQueueEvent();
        parts.zk().bounded("create lease node", created).whenComplete((event, error) -> {
            if (error != null) {
                fail(error);
            } else if (AsyncZk.code(event) != Code.OK) {
                fail(AsyncZk.unexpected("create lease node", event));
            } else {
                ourPath = event.getName();
                listed.whenComplete((listing, listError) -> {
                    if (listedBehind(listing, listError)) {
                        judgePosition(listing);
                    } else {
                        checkPosition();
                    }
                });
            }
        });
    }

    /**
     * Whether a listing sent right behind our create shows our node, so it may stand for {@link
     * #checkPosition}'s. Why it then may: ZooKeeper serves one session's requests in order, and any
     * listing taken after our node exists judges our place as well as a later one (nodes ahead of
     * ours only go; later ones queue behind us). A listing that does not show our node by its exact
     * name was taken before the create applied (Curator first made the parents, or re-sent the
     * create after a lost connection), or failed: that costs the usual listing, nothing else.
     */
    private boolean listedBehind(CuratorEvent listing, Throwable error) {
        return error == null && AsyncZk.code(listing) == Code.OK && listing.getChildren() != null
                && listing.getChildren().contains(LockNodes.nameOf(ourPath));
    }

    private CompletableFuture<CuratorEvent> listQueueEvent() {
        String lockPath = parts.nodes().lockPath(lock);
        return parts.zk().call("list " + lockPath, cb -> parts.client().getChildren().inBackground(cb).forPath(lockPath));
    }

    private void checkPosition() {
        if (state.get() != State.WAITING) {
            return;
        }
        listQueueEvent().whenComplete((event, error) -> {
            if (error != null) {
                fail(error);
                return;
            }
            if (AsyncZk.code(event) != Code.OK) {
                fail(AsyncZk.unexpected("list lock queue", event));
                return;
            }
            judgePosition(event);
        });
    }

    /** Our place in a listing of the queue taken after our node was created: grant, give up or wait. */
    private void judgePosition(CuratorEvent event) {
        if (state.get() != State.WAITING) {
            return;
        }
        String lockPath = parts.nodes().lockPath(lock);
        List<String> queue = withoutTwins(LockNodes.queue(event.getChildren()), lockPath);
        int at = queue.indexOf(LockNodes.nameOf(ourPath));
        int blocker = at < 0 ? -1 : blocker(queue, at);
        if (at < 0) {
            fail(new IssuerUnavailableException("lease node of lock " + lock + " vanished while queued (session lost?)"));
        } else if (blocker < 0) {
            grantAfterLockDelay(event.getStat());
        } else if (waitMs == 0) {
            giveUp();
        } else {
            watchPredecessor(lockPath + "/" + queue.get(blocker));
        }
    }

    /**
     * The index of the node among {@code queue}'s first {@code before} nodes that keeps this acquire
     * waiting, the one it watches; -1 if none does. A writer waits for its predecessor (any mode), a
     * reader for the nearest write node before it.
     */
    private int blocker(List<String> queue, int before) {
        int end = Math.min(before, queue.size());
        if (mode == LeaseMode.WRITE) {
            return end - 1;
        }
        for (int i = end - 1; i >= 0; i--) {
            if (LockNodes.modeOf(queue.get(i)) == LeaseMode.WRITE) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code queue} without other nodes bearing our node's protected id, which are deleted. Why:
     * when a create's answer is lost, Curator's protected mode looks for the id with a plain
     * listing, and a server that is behind (the client never saw the create's zxid, so it may
     * reconnect there) misses the node; Curator then creates a second one. The first, applied,
     * belongs to this session, sits ahead of ours, and nobody tracks it: waiting behind it would
     * block the lock until the session ends. This listing sees it: our create was answered, so the
     * server has applied every earlier write.
     */
    private List<String> withoutTwins(List<String> queue, String lockPath) {
        String ours = LockNodes.nameOf(ourPath);
        Optional<String> id = org.apache.curator.framework.imps.ProtectedUtils.extractProtectedId(ours);
        if (id.isEmpty()) {
            return queue;
        }
        List<String> kept = new java.util.ArrayList<>(queue.size());
        for (String name : queue) {
            if (!name.equals(ours) && LockNodes.withProtectedId(List.of(name), id.get()).isPresent()) {
                log.warn("lock {}: deleting {}, an earlier node of this acquire whose create's answer was lost", lock, name);
                parts.deleteGuaranteed(lockPath + "/" + name);
            } else {
                kept.add(name);
            }
        }
        return kept;
    }

    /**
     * Watches with getData, as Curator's LockInternals does, never with exists: an exists-watch on a
     * node that is already gone stays on the server (and its watcher, holding this acquisition, in
     * the client) until the session ends. getData on a missing node sets no watch.
     */
    private void watchPredecessor(String predecessor) {
        waited = true;
        Watcher watcher = (WatchedEvent e) -> checkPosition();
        watched = predecessor;
        parts.zk().call("watch " + predecessor, cb -> parts.client().getData()
                        .usingWatcher(watcher).inBackground(cb).forPath(predecessor))
                .whenComplete((event, error) -> {
                    if (error != null) {
                        fail(error);
                    } else if (AsyncZk.code(event) == Code.NONODE) {
                        checkPosition(); // gone before the watch was set: no watch was left
                    } else if (AsyncZk.code(event) != Code.OK) {
                        fail(AsyncZk.unexpected("watch predecessor", event));
                    } else if (abandoned) {
                        unwatch(); // gave up while the watch was being set: a removal sent earlier came first
                    }
                    // else: the watch fires when the predecessor changes or goes.
                });
    }

    /**
     * Removes our watch on the predecessor, if one may be set. Why: a waiter that gives up would
     * otherwise leave it on the server until the predecessor changes, which a long-held lease may
     * not do for hours: a thousand impatient waiters, a thousand watches.
     *
     * <p>Why all of this session's data watches on that path and not only ours: ZooKeeper removes
     * one watcher on the client alone (the server only checks that a watch is there), and keeps
     * the server's until it fires. No other acquisition in this session can be watching the same
     * node: it would have our node, or a later one, between itself and that node. One that starts
     * to watch it after our node goes sends its read after this removal, on the same session, so
     * the server applies them in that order. Quietly: the watch may have fired already.
     */
    private void unwatch() {
        String path = watched;
        if (path == null) {
            return;
        }
        try {
            parts.client().watchers().removeAll().ofType(Watcher.WatcherType.Data).quietly()
                    .inBackground().forPath(path);
        } catch (Exception e) {
            // Closing client, or the connection is down: the watch then goes with the session, or fires.
            log.debug("lock {}: could not remove the watch on {}", lock, path, e);
        }
    }

    /**
     * At the head of the queue: grants now, unless the previous lease ended involuntarily under a
     * lock-delay that has not passed (the driver judges it); then checks again when it has (the
     * wait deadline may give up first). Nothing watches a delay's end, so a timer does.
     */
    private void grantAfterLockDelay(Stat lockStat) {
        driver.delayRemainingMs(lock, lockStat, mode).whenComplete((remaining, error) -> {
            if (error != null) {
                fail(error);
            } else if (remaining <= 0) {
                markSeen = remaining == 0;
                grant();
            } else if (waitMs == 0) {
                giveUp();
            } else if (state.get() == State.WAITING) {
                waited = true;
                try {
                    parts.scheduler().schedule(this::checkPosition, remaining, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    fail(new IssuerUnavailableException("ZooKeeper lease issuer closed", e));
                }
            }
        });
    }

    /** Package-private so a test can play a watcher whose queue check found this node first. */
    void grant() {
        grant(false, -1);
    }

    /**
     * @param inOneTrip   granted by {@link UncontendedGrant}'s transaction, which in ZXID mode also
     *                    recorded the grant on the lock node
     * @param lockVersion the lock node's version after that transaction; -1 if unknown
     */
    private void grant(boolean inOneTrip, int lockVersion) {
        if (!state.compareAndSet(State.WAITING, State.GRANTING)) {
            return;
        }
        cancelDeadline();
        Stat stat = createStat;
        CompletableFuture<Stat> statReady = stat.getCzxid() != 0
                ? CompletableFuture.completedFuture(stat)
                // The create's stat is not filled when Curator recovered a protected node after a
                // connection loss: read it.
                : parts.zk().call("stat " + ourPath, cb -> parts.client().checkExists().inBackground(cb).forPath(ourPath))
                        .thenApply(event -> {
                            if (event.getStat() == null) {
                                throw AsyncZk.unexpected("stat lease node", event);
                            }
                            return event.getStat();
                        });
        // In one trip the node's expiry was written in the same transaction: answer that one.
        // The holder's deadline (on the monotonic clock) counts from when the expiry the node holds
        // was taken: a waited grant writes a new one from now on; else the node keeps the one its
        // creating request wrote, which may be earlier than this grant.
        long startedAtNanos = waited && !inOneTrip ? System.nanoTime() : nodeDataAtNanos;
        long expiresAt = inOneTrip ? writtenExpiresAt : parts.clock().millis() + ttlMs;
        statReady.thenCompose(s -> {
            long token = parts.mode().tokenOf(s, LockNodes.nameOf(ourPath));
            Lease lease = new Lease(lock, LeaseIds.FORMAT.format(ourPath, secret), token, expiresAt, startedAtNanos, mode, slot);
            CompletableFuture<Void> expirySet = waited ? writeExpiry(expiresAt) : CompletableFuture.completedFuture(null);
            // The grant is durable before the holder learns its token, so wasGranted never says
            // no to a token that was handed out.
            CompletableFuture<Void> recorded;
            if (inOneTrip && parts.mode() == TokenMode.ZXID) {
                parts.grants().known(lock, token);
                recorded = CompletableFuture.completedFuture(null);
            } else {
                recorded = expirySet.thenCompose(v -> parts.grants().record(lock, token, mode));
            }
            return recorded
                    .thenCompose(v -> driver.granted(lock, token, lockDelayMs, expiresAt, markSeen, mode))
                    .thenApply(v -> lease);
        }).whenComplete((lease, error) -> {
            if (error != null) {
                // Final: never back to WAITING, where a watcher firing now could start a second grant.
                if (state.compareAndSet(State.GRANTING, State.DONE)) {
                    driver.grantFailed(lock, error);
                    end(error);
                }
                return;
            }
            parts.held().add(lease, ourPath, waited ? 1 : 0, lockVersion, lockDelayMs, ttlMs);
            state.compareAndSet(State.GRANTING, State.DONE); // only this grant holds GRANTING
            if (!result.complete(Optional.of(lease))) {
                // Closed while granting.
                parts.held().forget(ourPath);
                parts.deleteGuaranteed(ourPath);
            }
        });
    }

    /** A waiter's node was written with a provisional expiry; the ttl counts from the grant. */
    private CompletableFuture<Void> writeExpiry(long expiresAt) {
        byte[] data = new LeaseNodeData(parts.mode(), secret, ttlMs, expiresAt, lock, lockDelayMs).toBytes();
        String path = ourPath;
        return parts.zk().call("set expiry " + path, cb -> parts.client().setData().withVersion(0)
                .inBackground(cb).forPath(path, data)).thenAccept(event -> {
                    if (AsyncZk.code(event) != Code.OK) {
                        throw AsyncZk.unexpected("set lease expiry", event);
                    }
                });
    }

    private void giveUp() {
        if (state.compareAndSet(State.WAITING, State.DONE)) {
            removeOurNode();
            result.complete(Optional.empty());
        }
    }

    /** Marks this acquire answered and deletes its node, found by path or, if still unknown, by protected id. */
    private void removeOurNode() {
        abandoned = true;
        cancelDeadline();
        unwatch();
        if (ourPath != null) {
            parts.deleteGuaranteed(ourPath);
        } else if (attemptUnresolved) {
            parts.deleteProtected(parts.nodes().lockPath(lock), protectedId);
        }
    }

    private void fail(Throwable error) {
        if (state.compareAndSet(State.WAITING, State.DONE)) {
            end(error);
        }
    }

    /** Answers with {@code error} and removes our node; only the caller that moved the state to DONE. */
    private void end(Throwable error) {
        removeOurNode();
        result.completeExceptionally(error instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                ? c.getCause() : error);
    }

    private void cancelDeadline() {
        ScheduledFuture<?> timer = deadline;
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
