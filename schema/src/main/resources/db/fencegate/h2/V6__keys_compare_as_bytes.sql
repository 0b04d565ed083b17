-- Keys are compared as bytes (VARBINARY, as on MySQL/MariaDB): text columns follow the database's
-- settings, and IGNORECASE=TRUE in the URL (text columns created under it compare ignoring case)
-- or a case-insensitive collation (SET COLLATION ... STRENGTH PRIMARY) would make "Stock" and
-- "stock" one row under two locks. H2 converts the existing keys, and every key parameter bound
-- as a string, to their UTF-8 bytes. VARBINARY(2048) holds every key the stores accept
-- (FencegateSchema.MAX_KEY_BYTES, counted in UTF-8 bytes).
ALTER TABLE fencegate_item ALTER COLUMN resource SET DATA TYPE VARBINARY(2048);
ALTER TABLE fencegate_fence ALTER COLUMN resource SET DATA TYPE VARBINARY(2048);
