-- A view for operators (psql): the issuer's locks with names as text (the table keeps their bytes,
-- which psql shows as hex), the token (the lock's fence: the last one granted), whether a lease
-- holds the lock now and who was granted it, and when that lease ends. Times read the issuer's
-- clock, as every statement of the issuer does (the server's clock plus the issuer's offset, kept
-- in the row whose key is 32 zero bytes, which the view leaves out). Read-only: the issuer never uses it.
CREATE VIEW fencegate_leases AS
SELECT convert_from(f.lock_name, 'UTF8') AS lock_name,
       f.token,
       (f.secret IS NOT NULL AND f.expires_us > c.now_us) AS held,
       CASE WHEN f.secret IS NOT NULL AND f.expires_us > c.now_us THEN f.granted_by END AS holder,
       to_timestamp((f.expires_us - c.offset_us) / 1000000.0) AS expires_at,
       (f.expires_us - c.now_us) / 1000 AS expires_in_ms
FROM fencegate_lock_fence f
CROSS JOIN (SELECT o.offset_us, CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT) + o.offset_us AS now_us
            FROM (SELECT COALESCE((SELECT token FROM fencegate_lock_fence WHERE lock_key = decode('0000000000000000000000000000000000000000000000000000000000000000', 'hex')), 0)
                  AS offset_us) o) c
WHERE f.lock_key <> decode('0000000000000000000000000000000000000000000000000000000000000000', 'hex');
