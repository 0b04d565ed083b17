-- Shared by every script that sets or reads a lease's expiry (the issuer puts it in front of them,
-- with run.lua). Redis ends a lease by its wall clock, the holder by its monotonic clock: the lock
-- key, a read lease's entry and a lock-delay live this margin past the lease, so that a step of
-- Redis's clock ahead too small for the issuer to tell from a round trip (RedisClock's 250 ms
-- tolerance, see lease-clock.lua) or a clock slewing fast (up to 2 ms a second) never ends a lease
-- before its holder's deadline. The lease's ttl stays what it is everywhere it is answered (renew,
-- find, the listing subtract the margin); a lock whose holder died is free the margin later.
-- kept_ms(ttl): how long the key lives for a lease of ttl ms; margin_ms(ttl): kept_ms(ttl) - ttl.

local function margin_ms(ttl)
  return 250 + math.floor(tonumber(ttl) / 500)
end
local function kept_ms(ttl)
  return tonumber(ttl) + margin_ms(ttl)
end
