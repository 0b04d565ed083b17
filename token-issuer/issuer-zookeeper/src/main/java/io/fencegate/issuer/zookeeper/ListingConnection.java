package io.fencegate.issuer.zookeeper;

import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;

/**
 * The ZooKeeper connection listings read through: a connection of their own, opened on the first
 * listing, when the issuer owns its client.
 *
 * <p>Why apart from the connection that holds the leases: a listing reads every lock name under
 * {@code root/locks} in one getChildren (ZooKeeper has no paged listing), and a reply over the
 * client's {@code jute.maxbuffer} (1 MiB: about 800 locks of 1 KiB names) makes the client drop
 * the connection ("Packet len out of range"). On the shared connection every call in flight then
 * failed, acquires and renews of every caller included, for as long as the locks stayed. On its
 * own connection only the listing fails; leases, acquires and watches go on. A caller's own client
 * ({@link ZooKeeperLeaseIssuer.Builder#client}) is used for listings too: the issuer opens no
 * connection it was not asked to.
 *
 * <p>Its client takes replies up to {@code listingMaxBytes} (default 64 MiB) instead of 1 MiB, so
 * that long names and many idle locks under one prefix leave every prefix listable: the reply
 * grows with the lock names that exist, which the gateway bounds ({@code limits.lockNames},
 * {@code limits.perKey.lockNames}, {@code limits.maxKeyBytes}).
 */
final class ListingConnection implements Supplier<CuratorFramework>, AutoCloseable {
    private final Supplier<CuratorFramework> opener;
    private final boolean owned;
    private CuratorFramework client;
    private boolean closed;

    private ListingConnection(Supplier<CuratorFramework> opener, CuratorFramework shared) {
        this.opener = opener;
        this.owned = opener != null;
        this.client = shared;
    }

    /** A connection of its own, opened (and started) by {@code opener} on first use. */
    static ListingConnection own(Supplier<CuratorFramework> opener) {
        return new ListingConnection(opener, null);
    }

    /** The caller's client, shared with the leases. */
    static ListingConnection shared(CuratorFramework client) {
        return new ListingConnection(null, client);
    }

    @Override
    public synchronized CuratorFramework get() {
        if (client == null) {
            if (closed) {
                throw new IllegalStateException("the listing connection is closed");
            }
            client = opener.get();
            client.start();
        }
        return client;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (owned && client != null) {
            client.close();
        }
    }
}
