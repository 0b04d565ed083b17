-- A read lease. KEYS: counter, ceiling, run, live index, holders, lock, grants, delay, waiters,
-- readers, lease-clock offset. ARGV: grantsKept, grantRetentionMs, highest token this issuer has
-- seen, instance name, secret, ttlMs, lockDelayMs, lock name, waiters-mark ms (0: the caller does
-- not wait), waiters-mark ms on a grant (0: nobody else waits at this issuer), highest lease clock
-- ms (see lease-clock.lua). Answers {1, token, ceiling}, {0, pttl} (held; pttl -1 when only a
-- waiting writer holds it off), {-1}, {-2, counter} or {-4, lease clock} (nothing changed).
-- Read leases of a lock: the lock key says 'r' while any may hold writers off, and the readers
-- hash maps each one's secret to token:ttlMs:delayMs:expiresAtMs:instance (server clock). Both
-- live until the latest expiresAt + delay of its entries, so a write acquire (acquire.lua) needs
-- nothing new: it finds the lock key and answers held, and a read lease that ends without a
-- release holds writers off for its lock-delay. Readers ignore each other's delays.
-- Writer preference: a read acquire is held while a write lease holds the lock, while a write
-- lease's lock-delay runs, and while a writer waits (the waiters mark says 'w', see acquire.lua).
-- Runs after run.lua, expiry-margin.lua, token.lua and lease-clock.lua, which the issuer puts in
-- front of it. An entry's expiresAt is the margin past the lease (see expiry-margin.lua).

local state = redis.call('MGET', KEYS[6], KEYS[1], KEYS[2], KEYS[8], KEYS[3], KEYS[9], KEYS[11])
local lock_value, mark = state[1], state[6]
-- A waiting reader marks the lock 'r' but never lengthens a writer's 'w': each waiting writer
-- keeps its own mark alive, so a writer that gave up stops holding readers off once its mark
-- runs out, and readers queued behind it are let in (a reader renewing 'w' would starve them all).
local function held(pttl)
  local mark_ms = ARGV[9]
  if mark_ms ~= '0' and mark ~= 'w' and redis.call('PTTL', KEYS[9]) < tonumber(mark_ms) then
    redis.call('SET', KEYS[9], 'r', 'PX', mark_ms)
  end
  return {0, pttl}
end
if lock_value and lock_value ~= 'r' then return held(redis.call('PTTL', KEYS[6])) end
if state[4] then
  local delayed = redis.call('PTTL', KEYS[8])
  if delayed > 0 then return held(delayed) end
end
if mark == 'w' then return held(-1) end
local moved = clock_refusal(state[7], ARGV[11])
if moved then return moved end
local token, refusal = next_token(state[2], state[3], state[5], ARGV[3])
if refusal then return refusal end
local ttl, delay = tonumber(ARGV[6]), tonumber(ARGV[7])
redis.call('HSET', KEYS[10], ARGV[5], token .. ':' .. ttl .. ':' .. delay .. ':' .. (now_ms() + kept_ms(ttl)) .. ':' .. ARGV[4])
local keep = kept_ms(ttl) + delay
if lock_value then keep = math.max(keep, redis.call('PTTL', KEYS[6])) end
redis.call('SET', KEYS[6], 'r', 'PX', keep)
redis.call('PEXPIRE', KEYS[10], keep)
if ARGV[10] ~= '0' and redis.call('PTTL', KEYS[9]) < tonumber(ARGV[10]) then
  redis.call('SET', KEYS[9], mark or 'r', 'PX', ARGV[10])
end
record_grant(KEYS[7], token .. 'r', token, ARGV[8], tonumber(ARGV[1]), ARGV[2])
return {1, token, state[3]}
