package io.fencegate.issuer;

/** Why a lease ended without its holder releasing it. */
public enum LeaseEnd {
    /** Its ttl passed without a renew. */
    EXPIRED,
    /** The issuer lost the backend session that held it (ZooKeeper session expiry or loss). */
    SESSION_LOST
}
