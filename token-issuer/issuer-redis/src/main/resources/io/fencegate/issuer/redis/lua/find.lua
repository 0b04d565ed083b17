-- KEYS: lock, run. ARGV: secret. Answers {1, token, pttl} while the lease lives, else {0}.
-- Read only (for watchers); judges a lease from before a Redis restart gone, like RENEW.
-- The lease's remaining time is the key's, less its margin (see expiry-margin.lua).
-- Runs after run.lua and expiry-margin.lua, which the issuer puts in front of it.

local value = redis.call('GET', KEYS[1])
if not value then return {0} end
local secret, token, ttl = string.match(value, '^(%x+):(%d+):(%d+)$')
if secret ~= ARGV[1] then return {0} end
local floor = run_floor(KEYS[2])
if not floor or tonumber(token) <= floor then return {0} end
local left = redis.call('PTTL', KEYS[1]) - margin_ms(ttl)
if left <= 0 then return {0} end
return {1, token, left}
