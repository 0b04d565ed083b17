-- The token an applied write replaced (0 when it created the row). PostgreSQL 15 has no
-- RETURNING OLD: recording the old token in the row lets one plain upsert
-- (INSERT … ON CONFLICT DO UPDATE … WHERE <guard> RETURNING previous_token) answer
-- Applied(previousToken), without the locking CTEs the write needed before (PostgresGuardSql).
-- Nullable and without a default, so adding it rewrites nothing; rows written before V5 hold
-- NULL until their next write, and nothing reads it but that write's RETURNING.
ALTER TABLE fencegate_item ADD COLUMN previous_token BIGINT;
