-- Read-write leases and fenced semaphores. Only adds: nullable columns (NULL reads as before, a
-- write lease) and two tables, so an issuer of the previous version keeps working beside this one.

-- The mode of the lock's last token (TRUE: a read lease's), for grantedMode once its grant row is swept.
ALTER TABLE fencegate_lock_fence ADD token_read BOOLEAN;
-- Whether a grant was a read lease's: a store refuses a write with a read token.
ALTER TABLE fencegate_lease_grant ADD read_lease BOOLEAN;
-- A waiter's mode: readers queue behind an older waiting writer, a writer behind everyone older.
ALTER TABLE fencegate_lease_waiter ADD read_lease BOOLEAN;

-- The live read leases, one row each, written under the lock's fence row lock. While any may live,
-- the fence row holds them as one lease with a secret no id can name (32 'r's), expiring when the
-- last of them (with its lock-delay) may end: so every write grant, of this version or an older
-- one, finds the lock held, by the rule it already applies.
CREATE TABLE fencegate_lease_reader (
    lock_key   BYTEA NOT NULL,
    secret     CHAR(32) NOT NULL,
    token      BIGINT NOT NULL,
    expires_us BIGINT NOT NULL,
    ttl_ms     BIGINT NOT NULL,
    delay_ms   BIGINT NOT NULL,
    granted_by VARCHAR(200),
    PRIMARY KEY (lock_key, secret)
);
CREATE INDEX fencegate_lease_reader_token ON fencegate_lease_reader (lock_key, token);

-- Fenced semaphores: the permit count fixed by the first acquire. Slot k is the ordinary lock
-- '{name}/{k}', with its own fence row; the key is SHA-256 of 0xFF and the name's UTF-8 bytes
-- (no lock name hashes to it: 0xFF is never in UTF-8), so the semaphore's waiters have a line of their own.
CREATE TABLE fencegate_semaphore (
    sem_key  BYTEA NOT NULL PRIMARY KEY,
    sem_name BYTEA NOT NULL,
    permits  INTEGER NOT NULL
);
