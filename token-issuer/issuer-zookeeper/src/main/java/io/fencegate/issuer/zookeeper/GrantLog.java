package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.backend.KnownGrants;
import io.fencegate.issuer.backend.LruMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Durable record of granted tokens, for {@link ZooKeeperLeaseIssuer#wasGranted}. Each grant is a
 * PERSISTENT node written before the lease is answered, so every instance on the ensemble, and
 * every restart, knows it. The most recent {@link #KEEP_PER_LOCK} per lock are kept; forgetting
 * older ones only makes a store refuse a very old token, which is safe.
 */
final class GrantLog {

    static final int KEEP_PER_LOCK = 1000;
    private static final int PRUNE_EVERY = 100;
    private static final int CACHE_ENTRIES = 4096;
    /** A grant node's data once its lease was released; empty while live or after an involuntary end. */
    private static final byte[] RELEASED = "released".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final CuratorFramework client;
    private final AsyncZk zk;
    private final LockNodes nodes;
    /** Per busy lock; bounded, since a gateway may lock millions of items (a dropped count only delays a prune). */
    private final Map<String, AtomicInteger> grantsSincePrune = LruMap.synchronizedOf(CACHE_ENTRIES);
    private final KnownGrants known = new KnownGrants(CACHE_ENTRIES);

    GrantLog(CuratorFramework client, AsyncZk zk, LockNodes nodes) {
        this.client = client;
        this.zk = zk;
        this.nodes = nodes;
    }

    CompletableFuture<Void> record(String lock, long token) {
        String path = nodes.grantPath(lock, token);
        return zk.call("record grant " + token, cb -> client.create().creatingParentsIfNeeded()
                        .withMode(CreateMode.PERSISTENT).inBackground(cb).forPath(path, new byte[0]))
                .thenApply(event -> {
                    Code code = AsyncZk.code(event);
                    if (code != Code.OK && code != Code.NODEEXISTS) {
                        throw AsyncZk.unexpected("record grant", event);
                    }
                    known.add(lock, token);
                    if (grantsSincePrune.computeIfAbsent(lock, l -> new AtomicInteger()).incrementAndGet() % PRUNE_EVERY == 0) {
                        prune(lock);
                    }
                    return null;
                });
    }

    CompletableFuture<Boolean> wasGranted(String lock, long token) {
        if (token <= 0) {
            return CompletableFuture.completedFuture(false);
        }
        if (known.contains(lock, token)) {
            return CompletableFuture.completedFuture(true);
        }
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

    /**
     * Marks a grant as ended by release, before its lease node is deleted, so a watcher that sees
     * the node gone can tell a release from an expiry or a lost session (and lock-delay can skip a
     * voluntary end). Marked first on purpose: marked after, a watcher polling in between would
     * report a release as a loss. A mark whose delete then fails (the lease expired in the same
     * instant) calls that end voluntary; it was racing its own expiry either way.
     */
    CompletableFuture<Void> markReleased(String lock, long token) {
        String path = nodes.grantPath(lock, token);
        return zk.call("mark released " + token, cb -> client.setData().inBackground(cb).forPath(path, RELEASED))
                .thenApply(event -> {
                    Code code = AsyncZk.code(event);
                    // NONODE: the grant was pruned long ago; nothing to mark.
                    if (code != Code.OK && code != Code.NONODE) {
                        throw AsyncZk.unexpected("mark released", event);
                    }
                    return null;
                });
    }

    CompletableFuture<Boolean> wasReleased(String lock, long token) {
        String path = nodes.grantPath(lock, token);
        return zk.call("read grant " + token, cb -> client.getData().inBackground(cb).forPath(path))
                .thenApply(event -> {
                    Code code = AsyncZk.code(event);
                    if (code == Code.NONODE) {
                        return false;
                    }
                    if (code != Code.OK) {
                        throw AsyncZk.unexpected("read grant", event);
                    }
                    return java.util.Arrays.equals(event.getData(), RELEASED);
                });
    }

    /** Best effort, in the background: a failed prune is retried after the next PRUNE_EVERY grants. */
    private void prune(String lock) {
        String parent = nodes.grantsPath(lock);
        zk.call("list grants", cb -> client.getChildren().inBackground(cb).forPath(parent)).thenAccept(event -> {
            List<String> children = event.getChildren();
            if (AsyncZk.code(event) != Code.OK || children == null || children.size() <= KEEP_PER_LOCK) {
                return;
            }
            // Zero-padded names sort like their tokens.
            List<String> sorted = children.stream().sorted().toList();
            for (String old : sorted.subList(0, sorted.size() - KEEP_PER_LOCK)) {
                try {
                    client.delete().inBackground().forPath(parent + "/" + old);
                } catch (Exception e) {
                    return;
                }
            }
        });
    }
}
