-- A view for operators (mysql, mariadb): the issuer's locks with names as text (the table keeps
-- their bytes), the token (the lock's fence: the last one granted), whether a lease holds the lock
-- now and who was granted it, and when that lease ends (expires_at in UTC). Times read the issuer's
-- clock, as every statement of the issuer does (the server's clock plus the issuer's offset, kept
-- in the row whose key is 32 zero bytes, which the view leaves out). Read-only: the issuer never uses it.
CREATE VIEW fencegate_leases AS
SELECT CONVERT(f.lock_name USING utf8mb4) AS lock_name,
       f.token,
       (f.secret IS NOT NULL AND f.expires_us > c.now_us) AS held,
       CASE WHEN f.secret IS NOT NULL AND f.expires_us > c.now_us THEN f.granted_by END AS holder,
       TIMESTAMP '1970-01-01 00:00:00' + INTERVAL (f.expires_us - c.offset_us) MICROSECOND AS expires_at,
       (f.expires_us - c.now_us) DIV 1000 AS expires_in_ms
FROM fencegate_lock_fence f
CROSS JOIN (SELECT o.offset_us, TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) + o.offset_us AS now_us
            FROM (SELECT COALESCE((SELECT token FROM fencegate_lock_fence WHERE lock_key = X'0000000000000000000000000000000000000000000000000000000000000000'), 0)
                  AS offset_us) o) c
WHERE f.lock_key <> X'0000000000000000000000000000000000000000000000000000000000000000';
