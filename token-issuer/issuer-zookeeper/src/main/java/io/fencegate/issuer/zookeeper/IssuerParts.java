package io.fencegate.issuer.zookeeper;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * What the issuer's engine classes share: one client, one clock-keeper, one layout. {@code clock}
 * is the wall clock lease expiries are kept by (the system clock; a test runs it ahead).
 */
record IssuerParts(CuratorFramework client, AsyncZk zk, LockNodes nodes, TokenMode mode,
                   ScheduledExecutorService scheduler, GrantLog grants, HeldLeases held, Clock clock) {

    /**
     * Deletes a node whatever happens to the connection: Curator's guaranteed delete retries in the
     * background until it succeeds or the session ends (which removes an ephemeral node anyway).
     * Used for lease nodes nobody will be answered about, so they cannot block the queue.
     */
    void deleteGuaranteed(String path) {
        try {
            client.delete().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            // Client closed: the session's end removes the ephemeral node.
        }
    }

    /**
     * Deletes the lease node under {@code lockPath} named with {@code protectedId}, if there is one:
     * for a transaction whose answer was lost. Retries until it knows (the session's end removes
     * the node anyway; a closed issuer stops trying).
     */
    void deleteProtected(String lockPath, String protectedId) {
        childrenAfterSync(lockPath)
                .whenComplete((event, error) -> {
                    KeeperException.Code code = error == null ? AsyncZk.code(event) : KeeperException.Code.CONNECTIONLOSS;
                    if (code == KeeperException.Code.OK) {
                        LockNodes.withProtectedId(event.getChildren(), protectedId)
                                .ifPresent(name -> deleteGuaranteed(lockPath + "/" + name));
                    } else if (code != KeeperException.Code.NONODE && code != KeeperException.Code.SESSIONEXPIRED) {
                        try {
                            scheduler.schedule(() -> deleteProtected(lockPath, protectedId), 250, TimeUnit.MILLISECONDS);
                        } catch (RejectedExecutionException closed) {
                            // the issuer closed: its session's end removes the node
                        }
                    }
                });
    }

    /**
     * The children of {@code path} as the leader has them: a sync, then the listing (an event with
     * the listing's code and children). For a look for a lease node whose create's answer was lost.
     * Why the sync: the client may have reconnected to a server that has not applied that create
     * yet (it never saw the create's zxid, so ZooKeeper lets it connect there); a listing without
     * the node would read as "never applied", and the node, once applied, would belong to this
     * session and block its lock with nobody tracking it until the session ends. A sync makes the
     * server catch up with everything the leader committed before it, and the create cannot be
     * committed after it: a request the old server forwards after the session moved is refused
     * (SESSIONMOVED).
     */
    CompletableFuture<org.apache.curator.framework.api.CuratorEvent> childrenAfterSync(String path) {
        return zk.call("sync " + path, cb -> client.sync().inBackground(cb).forPath(path))
                .thenCompose(synced -> {
                    KeeperException.Code code = AsyncZk.code(synced);
                    if (code != KeeperException.Code.OK && code != KeeperException.Code.NONODE) {
                        throw AsyncZk.unexpected("sync", synced);
                    }
                    return zk.call("list " + path, cb -> client.getChildren().inBackground(cb).forPath(path));
                });
    }

    /** Deletes at the given version; the future holds ZooKeeper's result code. */
    CompletableFuture<KeeperException.Code> delete(String path, int version) {
        return zk.call("delete " + path, cb -> client.delete().withVersion(version).inBackground(cb).forPath(path))
                .thenApply(AsyncZk::code);
    }
}
