package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.backend.KnownGrants;
import io.fencegate.issuer.backend.LruMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Durable record of granted tokens, for {@link ZooKeeperLeaseIssuer#wasGranted}. Every grant is
 * durable before the lease is answered, so every instance on the ensemble, and every restart,
 * knows it. A grant is either a PERSISTENT node {@code root/grants/<lock>/<token>}, or, for the
 * newest grant of a lock taken in one round trip ({@link UncontendedGrant}, ZXID mode), the lock
 * node itself: its data is {@link #GRANT_AT_MZXID} and its mzxid is the token (the lease node was
 * created in the same transaction, so its czxid is that zxid). Whoever rewrites such a lock node
 * first logs that grant as a node, in the same transaction or before. The most recent {@link
 * #KEEP_PER_LOCK} grant nodes per lock are kept; forgetting older ones only makes a store refuse
 * a very old token, which is safe.
 */
final class GrantLog {

    static final int KEEP_PER_LOCK = 1000;
    private static final int PRUNE_EVERY = 100;
    static final int CACHE_ENTRIES = 4096;
    /** A grant node's data once its lease was released; empty while live or after an involuntary end. */
    static final byte[] RELEASED = "released".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /**
     * A read lease's grant node's data while live, and once released: its mode is known from any
     * instance ({@code grantedMode}), so a store refuses a write with a read token. A write grant's
     * node keeps the data it always had (empty, {@link #RELEASED}), which older issuers read.
     */
    static final byte[] READ = "read".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    static final byte[] READ_RELEASED = "read-released".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /**
     * A lock node's data while its mzxid is a granted token not yet logged as a grant node. Longer
     * than any lock-delay mark (at most 59 bytes), so a queue listing's {@code dataLength} tells
     * the two apart without a read.
     */
    static final byte[] GRANT_AT_MZXID = "fg-grant-at-mzxid:the-lock-node-mzxid-is-a-granted-token-not-yet-logged"
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final CuratorFramework client;
    private final AsyncZk zk;
    private final LockNodes nodes;
    /** Per busy lock; bounded, since a gateway may lock millions of items (a dropped count only delays a prune). */
    private final Map<String, AtomicInteger> grantsSincePrune = LruMap.synchronizedOf(CACHE_ENTRIES);
    /** The issuer's positive {@code wasGranted} cache: grants written here are known without a read. */
    private final KnownGrants known;

    GrantLog(CuratorFramework client, AsyncZk zk, LockNodes nodes, KnownGrants known) {
        this.client = client;
        this.zk = zk;
        this.nodes = nodes;
        this.known = known;
    }

    /**
     * Writes a grant node (already there is fine): before a grant is answered, or, for a grant
     * the lock node records ({@link #GRANT_AT_MZXID}), before that lock node is rewritten.
     */
    CompletableFuture<Void> record(String lock, long token) {
        return record(lock, token, LeaseMode.WRITE);
    }

    /** ... of a grant in {@code mode}, which its node's data keeps ({@link #READ}). */
    CompletableFuture<Void> record(String lock, long token, LeaseMode mode) {
        String path = nodes.grantPath(lock, token);
        byte[] data = mode == LeaseMode.READ ? READ : new byte[0];
        return zk.call("record grant " + token, cb -> client.create().creatingParentsIfNeeded()
                        .withMode(CreateMode.PERSISTENT).inBackground(cb).forPath(path, data))
                .thenApply(event -> {
                    Code code = AsyncZk.code(event);
                    if (code != Code.OK && code != Code.NODEEXISTS) {
                        throw AsyncZk.unexpected("record grant", event);
                    }
                    known.add(lock, token, mode);
                    logged(lock, token);
                    return null;
                });
    }

    /** The data a grant node holds once its lease in {@code mode} was released. */
    static byte[] releasedData(LeaseMode mode) {
        return mode == LeaseMode.READ ? READ_RELEASED : RELEASED;
    }

    /**
     * The mode {@code token} was granted in, or empty if it was not; read as {@link #wasGranted}
     * reads (node, lock node, node). A grant the lock node records is a write: only write leases
     * are granted in one round trip.
     */
    CompletableFuture<Optional<LeaseMode>> modeOf(String lock, long token) {
        return loggedMode(lock, token).thenCompose(logged -> logged.isPresent()
                ? CompletableFuture.completedFuture(logged)
                : atLockNode(lock, token).thenCompose(there -> there ? CompletableFuture.completedFuture(Optional.of(LeaseMode.WRITE))
                        : loggedMode(lock, token)));
    }

    private CompletableFuture<Optional<LeaseMode>> loggedMode(String lock, long token) {
        String path = nodes.grantPath(lock, token);
        return zk.readIfExists("mode of grant " + token, cb -> client.getData().inBackground(cb).forPath(path))
                .thenApply(event -> {
                    if (event == null) {
                        return Optional.<LeaseMode>empty();
                    }
                    byte[] data = event.getData();
                    LeaseMode mode = java.util.Arrays.equals(data, READ) || java.util.Arrays.equals(data, READ_RELEASED)
                            ? LeaseMode.READ : LeaseMode.WRITE;
                    known.add(lock, token, mode);
                    return Optional.of(mode);
                });
    }

    /** A grant node for {@code token} was written (here, or in a release's transaction). */
    void logged(String lock, long token) {
        known.add(lock, token);
        if (grantsSincePrune.computeIfAbsent(lock, l -> new AtomicInteger()).incrementAndGet() % PRUNE_EVERY == 0) {
            prune(lock);
        }
    }

    /** True if a lock node's data says its mzxid is a grant not yet logged as a node. */
    static boolean isGrantAtMzxid(byte[] lockData) {
        return java.util.Arrays.equals(lockData, GRANT_AT_MZXID);
    }

    /** Learnt from a successful transaction: a "yes" needs no read later. */
    void known(String lock, long token) {
        known.add(lock, token);
    }

    /** For a positive token (the issuer answers the others); a "yes" is cached by the caller or here. */
    CompletableFuture<Boolean> wasGranted(String lock, long token) {
        if (known.contains(lock, token)) {
            return CompletableFuture.completedFuture(true);
        }
        // Node, then lock node, then node again: a grant leaves the lock node only after (or in the
        // same transaction as) its node was written, so one of the three reads sees it.
        return logContains(lock, token).thenCompose(logged -> logged ? CompletableFuture.completedFuture(true)
                : atLockNode(lock, token).thenCompose(there -> there ? CompletableFuture.completedFuture(true)
                        : logContains(lock, token)));
    }

    private CompletableFuture<Boolean> logContains(String lock, long token) {
        String path = nodes.grantPath(lock, token);
        return zk.call("check grant " + token, cb -> client.checkExists().inBackground(cb).forPath(path))
                .thenApply(event -> {
                    Code code = AsyncZk.code(event);
                    if (code == Code.OK && event.getStat() != null) {
                        known.add(lock, token);
                        return true;
                    }
                    if (code == Code.OK || code == Code.NONODE) {
                        return false;
                    }
                    throw AsyncZk.unexpected("check grant", event);
                });
    }

    private CompletableFuture<Boolean> atLockNode(String lock, long token) {
        String path = nodes.lockPath(lock);
        return zk.readIfExists("read lock " + path, cb -> client.getData().inBackground(cb).forPath(path))
                .thenApply(event -> {
                    if (event != null && isGrantAtMzxid(event.getData()) && event.getStat().getMzxid() == token) {
                        known.add(lock, token);
                        return true;
                    }
                    return false;
                });
    }

    /**
     * Marks a grant as ended by release, before its lease node is deleted, so a watcher that sees
     * the node gone can tell a release from an expiry or a lost session (and lock-delay can skip a
     * voluntary end). Marked first on purpose: marked after, a watcher polling in between would
     * report a release as a loss. A mark whose delete then fails (the lease expired in the same
     * instant) calls that end voluntary; it was racing its own expiry either way.
     */
    CompletableFuture<Void> markReleased(String lock, long token) {
        return markReleased(lock, token, LeaseMode.WRITE);
    }

    /** ... of a lease in {@code mode} (a read grant's node keeps saying read). */
    CompletableFuture<Void> markReleased(String lock, long token, LeaseMode mode) {
        String path = nodes.grantPath(lock, token);
        return zk.call("mark released " + token, cb -> client.setData().inBackground(cb).forPath(path, releasedData(mode)))
                .thenCompose(event -> {
                    Code code = AsyncZk.code(event);
                    if (code == Code.NONODE) {
                        // Recorded on its lock node only (a one-round-trip grant): log it as released.
                        return zk.call("log released " + token, cb -> client.create().creatingParentsIfNeeded()
                                .withMode(CreateMode.PERSISTENT).inBackground(cb).forPath(path, RELEASED))
                                .thenCompose(created -> switch (AsyncZk.code(created)) {
                                    case OK -> CompletableFuture.<Void>completedFuture(null);
                                    case NODEEXISTS -> markReleased(lock, token, mode); // logged meanwhile
                                    default -> CompletableFuture.<Void>failedFuture(AsyncZk.unexpected("log released", created));
                                });
                    }
                    if (code != Code.OK) {
                        throw AsyncZk.unexpected("mark released", event);
                    }
                    return CompletableFuture.<Void>completedFuture(null);
                });
    }

    CompletableFuture<Boolean> wasReleased(String lock, long token) {
        String path = nodes.grantPath(lock, token);
        return zk.readIfExists("read grant " + token, cb -> client.getData().inBackground(cb).forPath(path))
                .thenApply(event -> event != null && (java.util.Arrays.equals(event.getData(), RELEASED)
                        || java.util.Arrays.equals(event.getData(), READ_RELEASED)));
    }

    /**
     * Best effort, in the background and batched (one list, one transaction of deletes every
     * PRUNE_EVERY grants), so it costs the hot path nothing; a failed prune is retried after the
     * next PRUNE_EVERY grants.
     */
    private void prune(String lock) {
        String parent = nodes.grantsPath(lock);
        zk.call("list grants", cb -> client.getChildren().inBackground(cb).forPath(parent)).thenAccept(event -> {
            List<String> children = event.getChildren();
            if (AsyncZk.code(event) != Code.OK || children == null || children.size() <= KEEP_PER_LOCK) {
                return;
            }
            // Zero-padded names sort like their tokens.
            List<String> sorted = children.stream().sorted().toList();
            List<CuratorOp> deletes = new ArrayList<>();
            try {
                for (String old : sorted.subList(0, sorted.size() - KEEP_PER_LOCK)) {
                    deletes.add(client.transactionOp().delete().forPath(parent + "/" + old));
                }
                client.transaction().inBackground().forOperations(deletes);
            } catch (Exception e) {
                // client closed: the next prune tries again
            }
        });
    }
}
