-- The SQL lease issuer's tables. Times are epoch microseconds by the database's own clock
-- (every statement computes them in SQL): no gateway's clock ever decides an expiry.

-- One row per lock, never deleted: its fence (the last token granted, only ever raised) and its
-- current lease. Keyed by SHA-256 of the lock name's UTF-8 bytes: names reach 4096 bytes, past
-- what a btree entry holds; the name itself is kept as bytes, so no collation can merge two locks.
CREATE TABLE fencegate_lock_fence (
    lock_key   BINARY(32)   NOT NULL PRIMARY KEY,
    lock_name  VARBINARY(4096) NOT NULL,
    token      BIGINT       NOT NULL,
    secret     BINARY(32),
    expires_us BIGINT,
    free_us    BIGINT,
    ttl_ms     BIGINT,
    delay_ms   BIGINT,
    granted_by VARCHAR(200)
) ENGINE = InnoDB;
CREATE INDEX fencegate_lock_fence_expiry ON fencegate_lock_fence (expires_us);

-- Every grant (for wasGranted and wasReleased), kept for the issuer's grant retention.
CREATE TABLE fencegate_lease_grant (
    lock_key   BINARY(32) NOT NULL,
    token      BIGINT  NOT NULL,
    granted_us BIGINT  NOT NULL,
    released   BOOLEAN NOT NULL,
    PRIMARY KEY (lock_key, token)
) ENGINE = InnoDB;
CREATE INDEX fencegate_lease_grant_age ON fencegate_lease_grant (granted_us);

-- Waiting acquirers, in arrival order (id); a row lives a few seconds unless its waiter refreshes it.
CREATE TABLE fencegate_lease_waiter (
    id         BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    lock_key   BINARY(32) NOT NULL,
    expires_us BIGINT NOT NULL
) ENGINE = InnoDB;
CREATE INDEX fencegate_lease_waiter_lock ON fencegate_lease_waiter (lock_key, id);
