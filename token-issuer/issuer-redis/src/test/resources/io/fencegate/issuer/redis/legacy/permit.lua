-- A permit of a fenced semaphore. KEYS: counter, ceiling, run, live index, holders, count,
-- permit waiters. ARGV: grantsKept, grantRetentionMs, highest token this issuer has seen, instance
-- name, secret, ttlMs, semaphore name, permits, waiters-mark ms (0: the caller does not wait),
-- waiters-mark ms on a grant (0: nobody else waits at this issuer), then the key prefixes of
-- locks, lock-delays and grant logs, then the permit's lock-delay ms (0: none). Answers {1, token, ceiling, slot}, {0, -1} (no slot free),
-- {-1}, {-2, counter} (see token.lua), or {-3, count, slot} (another count: the count key's, or,
-- with no count key, '' and a slot at or above the asked count that is still held).
-- Slot k is the ordinary lock 'name/k': a permit is a write lease on the first free slot's lock
-- (no lease, no lock-delay left), exactly as acquire.lua grants one, so renew, release and expiry
-- are a write lease's and a plain acquire of a slot's lock excludes its permit and back.
-- A permit's lock-delay is the slot lock's delay key, set as acquire.lua sets it: renew.lua
-- extends it, release.lua deletes it, an expiry leaves it to run out, so the slot stays taken
-- for the delay after its permit ended involuntarily.
-- The count key holds the count the first acquire fixed; it has no expiry. When it is missing (a
-- new semaphore, or lost with Redis's data) the asked count is fixed, unless a slot at or above it
-- is still held: a count key lost alone (DEL, eviction) must not let a smaller count add a permit
-- next to the larger count's. After a FLUSHALL or a restart without persistence the slots' locks
-- are lost with it, as every lease is; the next permit of a slot has a higher token (the counter
-- and its durable mark), so a store fences out the slot's lost holder.
-- Runs after run.lua and token.lua, which the issuer puts in front of it.

local name, n = ARGV[7], tonumber(ARGV[8])
local lock_prefix, delay_prefix, grants_prefix = ARGV[11], ARGV[12], ARGV[13]
local state = redis.call('MGET', KEYS[1], KEYS[2], KEYS[3], KEYS[6])
local count = state[4]
if count and tonumber(count) ~= n then return {-3, count, -1} end
if not count then
  local above = {} -- slots n .. Semaphores.MAX_PERMITS - 1
  for k = n, 999 do above[#above + 1] = lock_prefix .. name .. '/' .. k end
  if #above > 0 then
    local values = redis.call('MGET', unpack(above))
    for i = 1, #above do
      if values[i] then return {-3, '', n + i - 1} end
    end
  end
  redis.call('SET', KEYS[6], n)
end
local names = {}
for k = 0, n - 1 do names[k + 1] = lock_prefix .. name .. '/' .. k end
local values = redis.call('MGET', unpack(names))
local slot = nil
for k = 0, n - 1 do
  if not values[k + 1] and redis.call('PTTL', delay_prefix .. name .. '/' .. k) <= 0 then
    slot = k
    break
  end
end
if not slot then
  local mark_ms = ARGV[9]
  if mark_ms ~= '0' and redis.call('PTTL', KEYS[7]) < tonumber(mark_ms) then
    redis.call('SET', KEYS[7], '1', 'PX', mark_ms)
  end
  return {0, -1}
end
local token, refusal = next_token(state[1], state[2], state[3], ARGV[3])
if refusal then return refusal end
local lock = name .. '/' .. slot
redis.call('SET', lock_prefix .. lock, ARGV[5] .. ':' .. token .. ':' .. ARGV[6], 'PX', ARGV[6])
if tonumber(ARGV[14]) > 0 then
  redis.call('SET', delay_prefix .. lock, token .. ':' .. ARGV[14], 'PX', tonumber(ARGV[6]) + tonumber(ARGV[14]))
end
if ARGV[10] ~= '0' then redis.call('SET', KEYS[7], '1', 'PX', ARGV[10]) end
record_grant(grants_prefix .. lock, ARGV[4] .. ':' .. token, token, lock, tonumber(ARGV[1]), ARGV[2])
return {1, token, state[2], slot}
