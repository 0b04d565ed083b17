-- One call runs any number of acquires in turn (a batch, see GroupCommit), atomically.
-- KEYS: counter, ceiling, run, live index, lease-clock offset, then for each acquire: lock,
-- grants, delay, waiters. ARGV: run check ('check', 'skip' or 'probe'), grantsKept,
-- grantRetentionMs, highest token this issuer has seen, instance name, highest lease clock ms
-- (see lease-clock.lua), then for each acquire: secret, ttlMs, lockDelayMs, lock name,
-- waiters-mark ms (0: the caller does not wait), waiters-mark ms on a grant (0: nobody else waits
-- at this issuer). Answers one reply per acquire, in order: {1, token, ceiling}, {0, pttl} (held),
-- {-1}, {-2, counter} or {-4, lease clock} (Redis's clock stepped ahead: nothing changed); a probe
-- answers {1} if the counter was checked under the live run, else {0}, and changes nothing.
-- An acquire sees the writes of those before it: a second acquire of one lock answers held.
-- The run_id half of the run check is skipped only by an armed copy of this script (see
-- RunCheckShortcut), which still compares master_replid; this text itself always checks both,
-- once per call (neither can change while a script runs).
-- Why the ceiling: Redis may hand out only tokens the durable high-water mark already covers.
-- Why refuse a missing counter: INCR would silently re-create it at 1 and repeat old tokens.
-- Why refuse a counter not checked under the live run and replication id: it may be an older
-- one from a snapshot, or from a server this one followed.
-- Why refuse a counter below a token this issuer saw: the same, caught without trusting run_id.
-- The lock check comes first, so a held lock consumes no token (and costs no INFO).
-- Why one MGET for lock, counter, ceiling, delay and run: every redis.call costs the script a
-- round of argument and reply conversion; reads of plain strings share one (the delay's PTTL
-- is asked only when a delay key exists). No script writes the run key, so the run read by any
-- acquire of a batch is the one the whole call sees.
-- Lock-delay: a lease granted with a delay also sets the delay key (token:delayMs),
-- living ttl + delay and renewed with the lease; a release deletes it, an expiry leaves it to
-- run out, so an involuntarily ended lease keeps the lock from everyone for the delay.
-- Why the waiters mark: a caller that will wait marks the held lock, so a release PUBLISHes only
-- when someone may be listening; the mark is set atomically with the 'held' answer, so a release
-- after it always wakes that caller. A grant marks the lock too when other callers wait at the
-- granting issuer: a release wakes only each issuer's longest waiting caller (see
-- ReleaseSignals), so the others have not marked the lock since the last release. A mark is
-- only ever lengthened by a 'held' answer: a short wait's poll must not cut short the mark of a
-- longer wait or of a grant made while others wait.
-- Why the mark says 'w': a writer waits (read-acquire.lua refuses new readers while it does, so
-- a stream of overlapping readers never starves a writer); a waiting reader's mark says 'r'. A
-- grant's mark for others may say 'w' whoever they are: the lock is write-held until the release
-- deletes the mark.
-- What each command of an uncontended try-lock grant buys (wait 0: no waiters mark is touched):
-- MGET: the lock is free, no lock-delay runs, the counter is whole, under the ceiling and was
-- checked under this run, and the lease clock's offset; TIME: Redis's clock did not step ahead
-- (which would have ended the lock's last lease early, see lease-clock.lua); INFO replication (inside run_checked): the counter did not come back
-- with a change of role; INCR: the fencing token; SET: the lock itself (its value, secret:token:
-- ttl, is what renew, release, find and the listing read); ZADD of the live index: the listing
-- (GET /leases, the status page) finds the lock; ZADD+ZCARD+PEXPIRE of the
-- grant log: wasGranted/grantedMode of a past token, kept for grantRetention.
-- Why the grant log's member is instance:token: it records who granted the token for the
-- listing, in the ZADD the log needs anyway (there was a holders hash, one HSET a grant and one
-- HDEL a release more). Its score is the token, which is all wasGranted reads; a write member
-- ends with a digit and a read grant's (token .. 'r', see token.lua) with 'r', which is how
-- grantedMode tells them apart, in this version and the one before. The holders hash is no
-- longer written; entries an older version wrote are still read by the listing for its grants.
-- Why trim the grant log only past kept + kept/8: one ZREMRANGEBYRANK per kept/8 grants instead
-- of one per grant; the newest 'kept' grants are always there.
-- Why answer the ceiling: the issuer reserves the next block before this one runs out.
-- Runs after run.lua, expiry-margin.lua and lease-clock.lua, which the issuer puts in front of it.

local armed = false
if ARGV[1] == 'probe' then
  if run_floor(KEYS[3]) then return {1} end
  return {0}
end
local checked
local function run_checked(run)
  -- an armed copy in the cache proves the run (see RunCheckShortcut), not the role: the
  -- cache survives REPLICAOF, so the cheaper INFO replication is still read
  if checked == nil then
    checked = run_floor_of(run, armed and ARGV[1] == 'skip') ~= nil
  end
  return checked
end
local kept = tonumber(ARGV[2])
local function held(waiters, mark_ms, pttl)
  if mark_ms ~= '0' then
    if redis.call('PTTL', waiters) < tonumber(mark_ms) then
      redis.call('SET', waiters, 'w', 'PX', mark_ms)
    else
      redis.call('SET', waiters, 'w', 'KEEPTTL') -- a waiting reader's longer mark becomes a writer's
    end
  end
  return {0, pttl}
end
local function acquire(lock_key, grants, delay, waiters, secret, ttl, lock_delay, lock, waiters_ms, others_ms)
  local state = redis.call('MGET', lock_key, KEYS[1], KEYS[2], delay, KEYS[3], KEYS[5])
  if state[1] then return held(waiters, waiters_ms, redis.call('PTTL', lock_key)) end
  if state[4] then
    local delayed = redis.call('PTTL', delay)
    if delayed > 0 then return held(waiters, waiters_ms, delayed) end
  end
  local moved = clock_refusal(state[6], ARGV[6])
  if moved then return moved end
  if not run_checked(state[5]) then return {-1} end
  local counter, ceiling = state[2], state[3]
  if not counter or not ceiling then return {-1} end
  if tonumber(counter) < tonumber(ARGV[4]) then return {-1} end
  if tonumber(counter) + 1 > tonumber(ceiling) then return {-2, counter} end
  local token = redis.call('INCR', KEYS[1])
  redis.call('SET', lock_key, secret .. ':' .. token .. ':' .. ttl, 'PX', kept_ms(ttl))
  if tonumber(lock_delay) > 0 then
    redis.call('SET', delay, token .. ':' .. lock_delay, 'PX', kept_ms(ttl) + tonumber(lock_delay))
  end
  if others_ms ~= '0' then redis.call('SET', waiters, 'w', 'PX', others_ms) end
  redis.call('ZADD', KEYS[4], 0, lock)
  redis.call('ZADD', grants, token, ARGV[5] .. ':' .. token)
  if redis.call('ZCARD', grants) > kept + math.floor(kept / 8) then
    redis.call('ZREMRANGEBYRANK', grants, 0, -kept - 1)
  end
  redis.call('PEXPIRE', grants, ARGV[3])
  return {1, token, ceiling}
end
local replies = {}
for i = 0, (#KEYS - 5) / 4 - 1 do
  local k, a = 5 + 4 * i, 6 + 6 * i
  replies[i + 1] = acquire(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4],
      ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6])
end
return replies
