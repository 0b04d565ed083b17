package io.fencegate.issuer.redis;

/**
 * Every key and channel name, under one prefix so deployments (and tests) never collide. The
 * names are a data format in Redis, shared with issuers of other versions on the same prefix:
 * never change them ({@code RedisKeysTest} pins each one).
 */
record RedisKeys(String prefix) {

    // Per lock (or per lease): prefix + kind + ":" + name.

    /** The lock itself: {@code secret:token:ttlMs} of its lease, living the lease's ttl. */
    String lock(String lock) { return perLock("lock", lock); }

    /** The lock-delay of the lock's last lease granted with one: {@code token:delayMs}, living ttl + delay. */
    String delay(String lock) { return perLock("delay", lock); }

    /** Set while a caller waits for the lock, so its release PUBLISHes a wake-up. */
    String waiters(String lock) { return perLock("waiters", lock); }

    /**
     * Sorted set of the lock's latest granted tokens, for {@code wasGranted}: scored by token, the
     * member {@code instance:token} for a write grant (who granted it, for listings), {@code tokenr}
     * for a read grant; grants of versions before the member named the instance: {@code token}.
     */
    String grants(String lock) { return perLock("grants", lock); }

    /**
     * Hash of the lock's read leases, secret to {@code token:ttlMs:delayMs:expiresAtMs:instance}
     * (Redis's clock), living as long as the lock key, which says {@code r} while they hold it.
     */
    String readers(String lock) { return perLock("readers", lock); }

    /** A semaphore's permit count, fixed by its first acquire; no expiry. */
    String permits(String semaphore) { return perLock("permits", semaphore); }

    /** Set while a caller waits for a permit of the semaphore, so a permit's release PUBLISHes a wake-up. */
    String permitWaiters(String semaphore) { return perLock("permit-waiters", semaphore); }

    /** Short-lived marker left by a release (per lease secret), so the granting issuer does not report EXPIRED. */
    String released(String secret) { return perLock("released", secret); }

    private String perLock(String kind, String name) {
        return prefix + kind + ":" + name;
    }

    // One for the whole prefix.

    /** Sorted set of the locks granted and not released (expired ones until a listing sees them). */
    String live() { return prefix + "leases"; }

    /**
     * Hash lock to {@code token:instance name} of its last grant, written by versions before the
     * grant log's member named the instance; still read by listings for their grants.
     */
    String holders() { return prefix + "holders"; }

    /**
     * The lease clock's offset, ms: what the issuers subtract from Redis's {@code TIME}, the sum of
     * the steps ahead they repaired ({@link RedisClock}); missing means 0.
     */
    String clockOffset() { return prefix + "clock-offset"; }

    /** The last repaired step, {@code heldOffUntil:stepMs:locks} (lease clock), for every issuer's health. */
    String clockRepair() { return prefix + "clock-repair"; }

    /** One counter for all locks: tokens are unique across locks, like ZooKeeper's zxid. */
    String counter() { return prefix + "token-counter"; }

    /** Highest token Redis may hand out; never above the durable high-water mark. */
    String ceiling() { return prefix + "token-ceiling"; }

    /**
     * {@code run_id:master_replid:floor}: the Redis server run and replication id under which the
     * counter was last (re)initialised, and the counter's value then. Every token handed out before
     * that run and id is {@code <= floor}.
     */
    String run() { return prefix + "token-run"; }

    /**
     * The identity of the durable high-water mark that covers the counter
     * ({@link TokenHighWaterMark#identity()}): an issuer bringing another mark is refused.
     */
    String mark() { return prefix + "token-mark"; }

    /** The channel a release PUBLISHes the lock's name on, when a waiter marked the lock. */
    String releaseChannel() { return prefix + "released"; }
}
