-- The Redis issuer's token high-water mark, shared by every gateway on one Redis key prefix
-- (JdbcTokenHighWaterMark): no token above `mark` was ever handed out, so a Redis that lost its
-- counter restarts it here. One row per key prefix; the mark only ever grows.
CREATE TABLE fencegate_token_mark (
    name VARCHAR(255) NOT NULL PRIMARY KEY,
    mark BIGINT       NOT NULL,
    CONSTRAINT fencegate_token_mark_not_negative CHECK (mark >= 0)
);
