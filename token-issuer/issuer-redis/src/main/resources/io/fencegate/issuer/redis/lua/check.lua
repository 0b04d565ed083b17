-- KEYS: lock, released-marker, run, live index, holders. ARGV: secret, lock name. Answers pttl
-- (>= 0) if alive, -1 released, -2 gone. A lease from before a Redis restart is gone, like in
-- RENEW. An expired lease whose lock is free leaves the listing index here, so the index does
-- not grow with every lock that ever expired (a listing drops the ones of issuers that died).
-- Runs after run.lua, which the issuer puts in front of it.

local value = redis.call('GET', KEYS[1])
if value and string.sub(value, 1, #ARGV[1] + 1) == ARGV[1] .. ':' then
  local floor = run_floor(KEYS[3])
  if not floor or tonumber(string.match(value, '^%x+:(%d+):')) <= floor then return -2 end
  local pttl = redis.call('PTTL', KEYS[1])
  if pttl < 0 then return 0 end
  return pttl
end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
if not value then
  redis.call('ZREM', KEYS[4], ARGV[2])
  redis.call('HDEL', KEYS[5], ARGV[2])
end
return -2
