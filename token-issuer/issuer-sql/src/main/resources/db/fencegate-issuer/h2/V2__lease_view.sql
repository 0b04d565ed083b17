-- A view for operators: the issuer's locks with names as text (the table keeps their bytes), the
-- token (the lock's fence: the last one granted), whether a lease holds the lock now and who was
-- granted it, and when that lease ends. Times read the issuer's clock, as every statement of the
-- issuer does (the server's clock plus the issuer's offset, kept in the row whose key is 32 zero
-- bytes, which the view leaves out). Read-only: the issuer never uses it.
CREATE VIEW fencegate_leases AS
SELECT UTF8TOSTRING(f.lock_name) AS lock_name,
       f.token,
       (f.secret IS NOT NULL AND f.expires_us > c.now_us) AS held,
       CASE WHEN f.secret IS NOT NULL AND f.expires_us > c.now_us THEN f.granted_by END AS holder,
       DATEADD(MICROSECOND, f.expires_us - c.offset_us, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00') AS expires_at,
       (f.expires_us - c.now_us) / 1000 AS expires_in_ms
FROM fencegate_lock_fence f
CROSS JOIN (SELECT o.offset_us,
                   DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(6)) + o.offset_us AS now_us
            FROM (SELECT COALESCE((SELECT token FROM fencegate_lock_fence WHERE lock_key = X'0000000000000000000000000000000000000000000000000000000000000000'), 0)
                  AS offset_us) o) c
WHERE f.lock_key <> X'0000000000000000000000000000000000000000000000000000000000000000';
