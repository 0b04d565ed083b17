-- KEYS: lock, readers, released-marker, waiters, live index, holders. ARGV: secret, lock name,
-- channel, marker slack ms. Answers 1 (released) or 0 (no live read lease with this secret).
-- The entries left decide how long the lock stays 'r': until the latest expiry + delay among them
-- (expired ones still hold writers off for their delay; the ones past it are dropped here). When
-- none is left the lock is free: it leaves the listing index, and a waiter's mark PUBLISHes the
-- lock's name. A writer's mark ('w') stays, so the waiting writer gets the lock before new readers.
-- Runs after run.lua and token.lua.

local entry = redis.call('HGET', KEYS[2], ARGV[1])
if not entry then return 0 end
local ttl, expires = string.match(entry, '^%d+:(%d+):%d+:(%d+):')
local now = now_ms()
if tonumber(expires) <= now then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], '1', 'PX', tonumber(ttl) + tonumber(ARGV[4]))
local keep = 0
local rest = redis.call('HGETALL', KEYS[2])
for i = 1, #rest, 2 do
  local d, e = string.match(rest[i + 1], '^%d+:%d+:(%d+):(%d+):')
  local left = tonumber(e) + tonumber(d) - now
  if left <= 0 then redis.call('HDEL', KEYS[2], rest[i]) elseif left > keep then keep = left end
end
if keep > 0 then
  redis.call('PEXPIRE', KEYS[1], keep)
  redis.call('PEXPIRE', KEYS[2], keep)
  return 1
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[5], ARGV[2])
redis.call('HDEL', KEYS[6], ARGV[2])
local mark = redis.call('GET', KEYS[4])
if mark then
  if mark ~= 'w' then redis.call('DEL', KEYS[4]) end
  redis.call('PUBLISH', ARGV[3], ARGV[2])
end
return 1
