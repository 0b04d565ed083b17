-- A permit of a fenced semaphore. KEYS: counter, ceiling, run, live index, holders, count,
-- permit waiters, lease-clock offset. ARGV: run check ('check', 'skip' or 'probe', as in acquire.lua), grantsKept,
-- grantRetentionMs, highest token this issuer has seen, instance name, secret, ttlMs, semaphore
-- name, permits, waiters-mark ms (0: the caller does not wait), waiters-mark ms on a grant (0:
-- nobody else waits at this issuer), then the key prefixes of locks, lock-delays and grant logs,
-- then the permit's lock-delay ms (0: none), then the highest lease clock ms (see lease-clock.lua).
-- Answers {1, token, ceiling, slot}, {0, -1} (no slot free), {-1}, {-2, counter} (see token.lua),
-- {-4, lease clock} (Redis's clock stepped ahead: nothing changed), or {-3, count, slot} (another count: the count
-- key's, or, with no count key, '' and a slot at or above the asked count that is still held);
-- a probe answers {1} if the counter was checked under the live run, else {0}, and changes nothing.
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
-- The uncontended path, like the try-lock's, runs only what a guarantee needs:
-- MGET of counter, ceiling, run, count and every slot's lock and delay key, in one command: the
-- count is this semaphore's, a slot is free (no lease) and no lock-delay runs on it (a delay
-- key's PTTL is asked only when one exists, as acquire.lua does), the counter is whole, under
-- the ceiling and was checked under this run, and the lease clock's offset; TIME: Redis's clock
-- did not step ahead (see lease-clock.lua); INFO replication: the counter did not come back
-- with a change of role (INFO server, the run_id half, is skipped by an armed copy of this
-- script, see RunCheckShortcut, which proves the run as for acquire.lua); INCR: the token; SET:
-- the slot's lock; ZADD of the live index: the listing; ZADD+ZCARD+PEXPIRE of the slot's grant
-- log: wasGranted/grantedMode. The semaphore's waiters mark is touched only when a caller waits
-- and finds no slot, or when a grant is made while others were refused at this issuer.
-- Runs after run.lua, expiry-margin.lua, token.lua and lease-clock.lua, which the issuer puts in
-- front of it.

local armed = false
if ARGV[1] == 'probe' then
  if run_floor(KEYS[3]) then return {1} end
  return {0}
end
local name, n = ARGV[8], tonumber(ARGV[9])
local lock_prefix, delay_prefix, grants_prefix = ARGV[12], ARGV[13], ARGV[14]
-- state[4 + 2k + 1] is slot k's lock, state[4 + 2k + 2] its delay
local read = {KEYS[1], KEYS[2], KEYS[3], KEYS[6]}
for k = 0, n - 1 do
  read[5 + 2 * k] = lock_prefix .. name .. '/' .. k
  read[6 + 2 * k] = delay_prefix .. name .. '/' .. k
end
read[5 + 2 * n] = KEYS[8]
local state = redis.call('MGET', unpack(read))
local count = state[4]
if count and tonumber(count) ~= n then return {-3, count, -1} end
local moved = clock_refusal(state[5 + 2 * n], ARGV[16])
if moved then return moved end
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
local slot = nil
for k = 0, n - 1 do
  if not state[5 + 2 * k] and (not state[6 + 2 * k] or redis.call('PTTL', read[6 + 2 * k]) <= 0) then
    slot = k
    break
  end
end
if not slot then
  local mark_ms = ARGV[10]
  if mark_ms ~= '0' and redis.call('PTTL', KEYS[7]) < tonumber(mark_ms) then
    redis.call('SET', KEYS[7], '1', 'PX', mark_ms)
  end
  return {0, -1}
end
local token, refusal = next_token(state[1], state[2], state[3], ARGV[4], armed and ARGV[1] == 'skip')
if refusal then return refusal end
local lock = name .. '/' .. slot
redis.call('SET', lock_prefix .. lock, ARGV[6] .. ':' .. token .. ':' .. ARGV[7], 'PX', kept_ms(ARGV[7]))
if tonumber(ARGV[15]) > 0 then
  redis.call('SET', delay_prefix .. lock, token .. ':' .. ARGV[15], 'PX', kept_ms(ARGV[7]) + tonumber(ARGV[15]))
end
if ARGV[11] ~= '0' then redis.call('SET', KEYS[7], '1', 'PX', ARGV[11]) end
record_grant(grants_prefix .. lock, ARGV[5] .. ':' .. token, token, lock, tonumber(ARGV[2]), ARGV[3])
return {1, token, state[2], slot}
