-- KEYS: lock, readers, grants, run. ARGV: secret, grantRetentionMs. Answers {1, token, ttlMs} or
-- {0}. A read lease past its expiry is over, even while its entry stays for its lock-delay; so is
-- one granted before Redis restarted (see renew.lua). The lock key and the readers hash live on to
-- the latest expiry + delay of any entry. Runs after run.lua, expiry-margin.lua and token.lua.

local entry = redis.call('HGET', KEYS[2], ARGV[1])
if not entry then return {0} end
local token, ttl, delay, expires, holder = string.match(entry, '^(%d+):(%d+):(%d+):(%d+):(.*)$')
local now = now_ms()
-- In its margin (see expiry-margin.lua) the read lease is over for its holder: not brought back.
if tonumber(expires) - margin_ms(ttl) <= now or redis.call('GET', KEYS[1]) ~= 'r' then return {0} end
local floor = run_floor(KEYS[4])
if not floor or tonumber(token) <= floor then return {0} end
redis.call('HSET', KEYS[2], ARGV[1], token .. ':' .. ttl .. ':' .. delay .. ':' .. (now + kept_ms(ttl)) .. ':' .. holder)
local keep = math.max(kept_ms(ttl) + tonumber(delay), redis.call('PTTL', KEYS[1]))
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('PEXPIRE', KEYS[2], keep)
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return {1, token, ttl}
