package io.fencegate.issuer.zookeeper;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
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

    /** Deletes at the given version; the future holds ZooKeeper's result code. */
    CompletableFuture<KeeperException.Code> delete(String path, int version) {
        return zk.call("delete " + path, cb -> client.delete().withVersion(version).inBackground(cb).forPath(path))
                .thenApply(AsyncZk::code);
    }
}
