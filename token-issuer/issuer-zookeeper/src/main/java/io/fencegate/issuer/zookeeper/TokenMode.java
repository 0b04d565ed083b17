package io.fencegate.issuer.zookeeper;

import org.apache.zookeeper.data.Stat;

/** Where a ZooKeeper lease's fencing token comes from. Both strictly increase per lock. */
public enum TokenMode {
    /**
     * The {@code czxid} of the lease node (default). Why: a zxid is {@code epoch << 32 | counter},
     * assigned by the leader to every write in one total order, so it grows across leader
     * elections and server restarts, is unique across all locks, and needs nothing but the node's
     * own creation. Tokens are sparse (other writes use zxids too).
     */
    ZXID,
    /**
     * The lease node's sequential suffix plus one: the lock parent's cversion at creation. Dense
     * per lock, but only safe because the lock parent is PERSISTENT and never removed in this mode
     * (the idle sweeper removes ZXID-mode lock nodes only; a root is pinned to one mode): a CONTAINER
     * parent is reaped when empty, and its re-created successor counts from 0 again. Limited to
     * 2^31 grants per lock (ZooKeeper's sequence counter is a signed 32-bit int).
     */
    CVERSION;

    long tokenOf(Stat stat, String leaseNodeName) {
        return switch (this) {
            case ZXID -> stat.getCzxid();
            case CVERSION -> LockNodes.sequenceOf(leaseNodeName) + 1;
        };
    }
}
