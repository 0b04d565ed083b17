package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.backend.LruMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.OperationType;
import org.apache.curator.framework.imps.ProtectedUtils;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;

/**
 * An uncontended acquire in one ZooKeeper round trip: one transaction creates the lease node
 * and proves it is alone, so it holds the lock at once. Anything else (a queue, a lock-delay mark,
 * a lock node this issuer knows nothing about) is left to {@link Acquisition}'s queue-and-watch path.
 *
 * <p><b>ZXID mode</b>: {@code [delete(lock, v), create(lock, GRANT_AT_MZXID), create2(lease)]},
 * three ops (on a lock without a node: {@code [create(lock, GRANT_AT_MZXID), create(grant log), create2(lease)]},
 * the grant log's parent made for the release to log into). Why delete and re-create the lock node: a delete fails
 * ({@code NOTEMPTY}) while any lease node is queued, and a transaction applies entirely or not at
 * all, so success proves the new lease node is the only child: the holder. The version {@code v}
 * protects what the lock node's data says (a lock-delay mark, an unlogged grant); the lease node's
 * create answers its stat ({@link StatTransaction}), whose czxid, the transaction's zxid, is the
 * token. The re-created lock node's data and mzxid (the same zxid) record that grant durably in
 * the same transaction ({@link GrantLog}). Sequence
 * numbers restart in the re-created node, but only ever under an empty one, so FIFO order holds;
 * ZXID tokens never depend on them.
 *
 * <p><b>CVERSION mode</b> keeps its lock node (its cversion is the token counter):
 * {@code [create(lease), setData(lock, empty, v)]}; the setData's stat, taken after the create in
 * the same transaction, counts the lock's children: one means the new node is the holder, more
 * means it is queued (the caller then waits as usual). The grant node is written after, as on the
 * queue path (the token, the sequence, is only known once the transaction applied).
 *
 * <p>Which version a lock node has with empty data is known from the last release through this
 * issuer ({@link #emptyAt}), otherwise read first; a lock found in use goes straight to the queue
 * for a moment ({@link #BUSY_NANOS}), so contention costs no extra request. In ZXID mode such a cached version is always
 * {@link #EMPTY_AFTER_RELEASE}, and {@link LockDelays} never leaves a mark at that version, so a
 * lock node removed by the idle sweeper and re-created since can never pass the version check
 * with a mark this issuer would erase.
 *
 * <p>{@link #release} is the matching one-round-trip release of a lease granted here: one
 * transaction deletes the lease node at the version this issuer knows and marks its grant node
 * released (in ZXID mode, after a one-trip grant, it creates that node and empties the lock node,
 * which moves the grant from the lock node into the log). If anything changed meanwhile (a renew
 * elsewhere, a lock-delay), the transaction fails whole and the caller releases the long way.
 *
 * <p>The lease node's name carries a protected id (as Curator's protected mode does): when the
 * transaction's answer is lost with the connection, the caller finds out by that id whether it
 * applied, so one acquire grants at most once and leaves no orphan behind.
 */
final class UncontendedGrant {

    /**
     * A ZXID lock node's version after a one-trip grant (0: created by it) and its release (1). A
     * version remembered empty must never carry a lock-delay mark ({@link LockDelays} steps past it).
     */
    static final int GRANTED_VERSION = 0;
    static final int EMPTY_AFTER_RELEASE = 1;
    /**
     * What issuers before issue 18's second round left after their release (their grant stamped
     * the lock node once more). They may still run beside this one during a rolling upgrade and
     * remember an empty lock node at this version, so no mark is left at it either.
     */
    static final int EMPTY_AFTER_RELEASE_BEFORE = 2;
    private static final byte[] EMPTY = new byte[0];
    private static final int CACHE_ENTRIES = 4096;
    /**
     * How long a lock found in use goes straight to the queue: under contention an attempt costs a
     * read (or a refused transaction) and never succeeds. Short, so a lock freed elsewhere soon
     * gets its one-trip grants back.
     */
    private static final long BUSY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** What one attempt found. */
    sealed interface Outcome { }

    /** The new lease node is the only one: granted, recorded, {@code lockVersion} is the lock node's version now. */
    record Granted(String path, long czxid, int lockVersion) implements Outcome { }

    /** CVERSION only: the new lease node is queued behind others. */
    record Queued(String path) implements Outcome { }

    /** Nothing was tried: the lock is in use ({@code inUse}) or in a state only the queue path handles. */
    record NotApplied(boolean inUse) implements Outcome { }

    /**
     * Refused ({@code code}; null if no answer came), or the answer was lost: the transaction may
     * have applied; look for the protected id.
     */
    record Unknown(Code code, Throwable cause) implements Outcome {
        Unknown(Throwable cause) {
            this(null, cause);
        }
    }

    private final IssuerParts parts;
    private final TokenModeMarker modeMarker;
    /** What this issuer hears of a grant transaction's answer: the answer itself (a test loses it). */
    private final UnaryOperator<CuratorEvent> answers;
    /** Lock to the version at which its node was seen with empty data and no children, after a release here. */
    private final Map<String, Integer> emptyAt = LruMap.synchronizedOf(CACHE_ENTRIES);
    /** Lock to when (System.nanoTime) an attempt here last found it in use. */
    private final Map<String, Long> busySince = LruMap.synchronizedOf(CACHE_ENTRIES);

    UncontendedGrant(IssuerParts parts, TokenModeMarker modeMarker) {
        this(parts, modeMarker, UnaryOperator.identity());
    }

    /** {@code answers}: a test's seam, to lose or alter a transaction's answer. */
    UncontendedGrant(IssuerParts parts, TokenModeMarker modeMarker, UnaryOperator<CuratorEvent> answers) {
        this.parts = parts;
        this.modeMarker = modeMarker;
        this.answers = answers;
    }

    /**
     * Releases a lease granted here in one transaction; false if it did not apply (nothing was
     * changed then, unless a lost answer hid a success: the long release then finds no lease).
     */
    CompletableFuture<Boolean> release(HeldLeases.Releasable held) {
        String lock = held.lease().lock();
        long token = held.lease().token();
        String grantPath = parts.nodes().grantPath(lock, token);
        String lockPath = parts.nodes().lockPath(lock);
        boolean oneTrip = held.lockVersion() >= 0;
        List<CuratorOp> ops;
        try {
            var op = parts.client().transactionOp();
            CuratorOp deleteLease = op.delete().withVersion(held.nodeVersion()).forPath(held.path());
            CuratorOp markGrant = oneTrip && parts.mode() == TokenMode.ZXID
                    ? op.create().withMode(CreateMode.PERSISTENT).forPath(grantPath, GrantLog.RELEASED)
                    : op.setData().forPath(grantPath, GrantLog.releasedData(held.lease().mode()));
            ops = oneTrip ? List.of(deleteLease, op.setData().withVersion(held.lockVersion())
                    .forPath(lockPath, EMPTY), markGrant) : List.of(deleteLease, markGrant);
        } catch (Exception e) {
            return CompletableFuture.completedFuture(false);
        }
        // The root's mode was confirmed when this issuer granted the lease: no read here.
        return modeMarker.ensure().thenCompose(modeOk -> parts.zk().call("release " + held.path(),
                cb -> StatTransaction.send(parts.client(), ops, cb))).thenApply(event -> {
                    if (AsyncZk.code(event) != Code.OK || event.getOpResults() == null) {
                        return false;
                    }
                    if (oneTrip && parts.mode() == TokenMode.ZXID) {
                        parts.grants().logged(lock, token);
                    }
                    for (CuratorTransactionResult result : event.getOpResults()) {
                        Stat stat = result.getResultStat();
                        if (oneTrip && stat != null && result.getForPath().equals(lockPath)
                                && stat.getNumChildren() == 0) {
                            emptyAt.put(lock, stat.getVersion());
                            busySince.remove(lock);
                        }
                    }
                    return true;
                });
    }

    /**
     * One attempt. {@code protectedId} names the lease node; {@code leaseData} is its data. Never
     * fails: a failure is an {@link Unknown}. Not bounded by the operation timeout: it completes
     * when ZooKeeper answers the transaction, however late, so a late success can be undone.
     */
    CompletableFuture<Outcome> attempt(String lock, String protectedId, byte[] leaseData) {
        return attempt(lock, protectedId, leaseData, LockNodes.LEASE_PREFIX);
    }

    /** ... whose lease node is named with {@code nodePrefix} (a write lease's or a permit's, {@link LockNodes#leaseNodePrefix}). */
    CompletableFuture<Outcome> attempt(String lock, String protectedId, byte[] leaseData, String nodePrefix) {
        Integer cached = emptyAt.remove(lock);
        if (cached == null && recentlyBusy(lock)) {
            return CompletableFuture.completedFuture(new NotApplied(true));
        }
        CompletableFuture<Outcome> outcome = cached != null
                ? transact(lock, protectedId, leaseData, cached, nodePrefix)
                : readLock(lock).thenCompose(read -> read == null ? transact(lock, protectedId, leaseData, null, nodePrefix)
                        : !usable(read) ? CompletableFuture.completedFuture(new NotApplied(read.getStat().getNumChildren() > 0))
                        : logGrantOnLockNode(lock, read).thenCompose(v ->
                                transact(lock, protectedId, leaseData, read.getStat().getVersion(), nodePrefix)));
        return outcome.exceptionally(Unknown::new).thenApply(found -> {
            if (found instanceof Queued || found instanceof NotApplied n && n.inUse()
                    || found instanceof Unknown u && u.code() == Code.NOTEMPTY) {
                busySince.put(lock, System.nanoTime());
            }
            return found;
        });
    }

    private boolean recentlyBusy(String lock) {
        Long since = busySince.get(lock);
        return since != null && System.nanoTime() - since < BUSY_NANOS;
    }

    /** Empty data or an unlogged grant (logged before the node is rewritten), and nobody queued. */
    private boolean usable(CuratorEvent read) {
        byte[] data = read.getData();
        boolean empty = data == null || data.length == 0;
        return read.getStat().getNumChildren() == 0
                && (empty || parts.mode() == TokenMode.ZXID && GrantLog.isGrantAtMzxid(data));
    }

    private CompletableFuture<Void> logGrantOnLockNode(String lock, CuratorEvent read) {
        return GrantLog.isGrantAtMzxid(read.getData())
                ? parts.grants().record(lock, read.getStat().getMzxid())
                : CompletableFuture.completedFuture(null);
    }

    /** The lock node's data and stat, or null if it does not exist. */
    private CompletableFuture<CuratorEvent> readLock(String lock) {
        String path = parts.nodes().lockPath(lock);
        return parts.zk().readIfExists("read lock " + path, cb -> parts.client().getData().inBackground(cb).forPath(path));
    }

    /** {@code version} null: the lock node does not exist (ZXID creates it; CVERSION leaves that to the queue path). */
    private CompletableFuture<Outcome> transact(String lock, String protectedId, byte[] leaseData, Integer version, String nodePrefix) {
        if (version == null && parts.mode() == TokenMode.CVERSION) {
            return CompletableFuture.completedFuture(new NotApplied(false));
        }
        String lockPath = parts.nodes().lockPath(lock);
        String leasePath = ProtectedUtils.toProtectedZNodePath(parts.nodes().lockPath(lock) + "/" + nodePrefix, protectedId);
        List<CuratorOp> ops;
        try {
            var op = parts.client().transactionOp();
            CuratorOp createLease = op.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(leasePath, leaseData);
            if (parts.mode() == TokenMode.ZXID) {
                CuratorOp recreate = op.create().withMode(CreateMode.PERSISTENT).forPath(lockPath, GrantLog.GRANT_AT_MZXID);
                // A lock without a node has no grant log either (the sweeper removes the log first):
                // made here, so the release's one transaction can log the grant into it. Were the log
                // there after all, the create fails the whole transaction and the queue path takes over.
                ops = version == null
                        ? List.of(recreate, op.create().withMode(CreateMode.PERSISTENT).forPath(parts.nodes().grantsPath(lock)), createLease)
                        : List.of(op.delete().withVersion(version).forPath(lockPath), recreate, createLease);
            } else {
                ops = List.of(createLease, op.setData().withVersion(version).forPath(lockPath, EMPTY));
            }
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
        // ZXID: the lease node's create answers its stat (its czxid is the token), so no op is
        // spent on a stamp; CVERSION needs the lock's child count, which its setData answers.
        return parts.zk().unbounded("grant " + lockPath, cb -> StatTransaction.send(parts.client(), ops, cb))
                .thenApply(event -> outcome(answers.apply(event)));
    }

    private Outcome outcome(CuratorEvent event) {
        Code code = AsyncZk.code(event);
        List<CuratorTransactionResult> results = event.getOpResults();
        if (code == Code.OK && results != null) {
            String path = null;
            Stat leaseStat = null;
            Stat lockStat = null;
            for (CuratorTransactionResult result : results) {
                if (result.getResultPath() != null && LockNodes.isLeaseNode(LockNodes.nameOf(result.getResultPath()))) {
                    path = result.getResultPath();
                    leaseStat = result.getResultStat();
                } else if (result.getType() == OperationType.SET_DATA) {
                    lockStat = result.getResultStat();
                }
            }
            if (path == null) {
                return new Unknown(AsyncZk.unexpected("grant transaction", event));
            }
            if (parts.mode() == TokenMode.ZXID) {
                // Applied, so the delete (or the create) of the lock node found it without
                // children: the lease node is its only one. The lock node was created in this
                // transaction: version 0. No stat (a server before 3.9): czxid 0, read it later.
                return new Granted(path, leaseStat == null ? 0 : leaseStat.getCzxid(), GRANTED_VERSION);
            }
            if (lockStat == null) {
                return new Unknown(AsyncZk.unexpected("grant transaction", event));
            }
            return lockStat.getNumChildren() == 1 ? new Granted(path, lockStat.getMzxid(), lockStat.getVersion())
                    : new Queued(path);
        }
        // Even a refusal (NOTEMPTY, BADVERSION) may answer Curator's retry of a transaction whose
        // first answer was lost after it applied: only a look for the protected id tells.
        return new Unknown(code, AsyncZk.unexpected("grant transaction", event));
    }
}
