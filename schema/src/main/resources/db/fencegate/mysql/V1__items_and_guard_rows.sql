-- Items of a guarded store: the value and the token of its last applied write.
-- A NULL value is a missing item: a tombstone (token > 0) or never written.
-- Keys are compared as bytes (VARBINARY): a case-insensitive collation would make
-- "Stock" and "stock" one item under two locks.
CREATE TABLE fencegate_item (
    resource VARBINARY(2048) NOT NULL PRIMARY KEY,
    val      LONGBLOB,
    token    BIGINT          NOT NULL
) ENGINE = InnoDB;

-- Guard rows: one per resource that user statements are fenced by (the guard-row shape).
CREATE TABLE fencegate_fence (
    resource VARBINARY(2048) NOT NULL PRIMARY KEY,
    token    BIGINT          NOT NULL
) ENGINE = InnoDB;
