-- KEYS: lock, grants, run, delay. ARGV: secret, grantRetentionMs. Answers {1, token, ttlMs} or {0}.
-- A lease granted before Redis restarted (token <= the run's floor, or the run not checked yet)
-- is over: its key may have come back from a snapshot after another lease held the lock.
-- Runs after run.lua and expiry-margin.lua, which the issuer puts in front of it.

local value = redis.call('GET', KEYS[1])
if not value then return {0} end
local secret, token, ttl = string.match(value, '^(%x+):(%d+):(%d+)$')
if secret ~= ARGV[1] then return {0} end
local floor = run_floor(KEYS[3])
if not floor or tonumber(token) <= floor then return {0} end
-- In its margin (see expiry-margin.lua) the lease is over for its holder, and find and the expiry
-- watch say so: it is not brought back.
if redis.call('PTTL', KEYS[1]) <= margin_ms(ttl) then return {0} end
redis.call('PEXPIRE', KEYS[1], kept_ms(ttl))
redis.call('PEXPIRE', KEYS[2], ARGV[2])
local delay = redis.call('GET', KEYS[4])
if delay then
  local delayToken, delayMs = string.match(delay, '^(%d+):(%d+)$')
  if delayToken == token then redis.call('PEXPIRE', KEYS[4], kept_ms(ttl) + tonumber(delayMs)) end
end
return {1, token, ttl}
