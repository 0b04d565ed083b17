-- Items of a guarded store: the value and the token of its last applied write.
-- A NULL value is a missing item: a tombstone (token > 0) or never written.
CREATE TABLE fencegate_item (
    resource VARCHAR(2048) NOT NULL PRIMARY KEY,
    val      BYTEA,
    token    BIGINT        NOT NULL
);

-- Guard rows: one per resource that user statements are fenced by (the guard-row shape).
CREATE TABLE fencegate_fence (
    resource VARCHAR(2048) NOT NULL PRIMARY KEY,
    token    BIGINT        NOT NULL
);
