-- One call runs any number of releases in turn (a batch, see GroupCommit), atomically.
-- KEYS: live index, then for each release: lock, released-marker, delay, waiters.
-- ARGV: channel, marker slack ms, then for each release: secret, lock name. Answers one 1
-- (released) or 0 (not this lease's lock any more) per release, in order.
-- The marker tells the granting issuer (maybe another instance) "released, not expired";
-- the PUBLISH wakes waiters without polling, and is sent only if a waiter marked the lock
-- (see ACQUIRE): an uncontended release costs no message to every subscriber.
-- Why the marker lives the lease's ttl (from its lock value) and not the lock key's PTTL: one
-- redis.call fewer, and never shorter, since renew restores that same ttl.
-- Why one MGET and one DEL: fewer redis.calls. The DEL's count says whether the waiters mark
-- existed (the lock and a matching delay key were just read, and keys do not expire while a
-- script runs); a wrong count would only cost a waiter its wake-up, never the lock.
-- What each command of an uncontended release buys: MGET: only the lease's own secret releases
-- the lock, and whether the delay key is this lease's; DEL: the lock is free (and the waiters
-- mark, in the same command, tells whether anyone must be woken); SET of the marker: wasReleased
-- tells this release from an expiry (released events, the expiry watch, no lock-delay); ZREM:
-- the listing no longer shows the lock. Nothing else: the holder is in the grant log, which
-- outlives the lease on purpose (see acquire.lua).

local function release(lock_key, marker, delay_key, waiters, secret, lock)
  local state = redis.call('MGET', lock_key, delay_key)
  local value, delay = state[1], state[2]
  if not value or string.sub(value, 1, #secret + 1) ~= secret .. ':' then return 0 end
  local ttl = tonumber(string.match(value, '^%x+:%d+:(%d+)$'))
  local ended = {lock_key, waiters}
  if delay and string.match(delay, '^(%d+):') == string.match(value, '^%x+:(%d+):') then
    ended[3] = delay_key -- a voluntary end: no lock-delay
  end
  local waited = redis.call('DEL', unpack(ended)) == #ended
  redis.call('SET', marker, '1', 'PX', ttl + tonumber(ARGV[2]))
  redis.call('ZREM', KEYS[1], lock)
  if waited then redis.call('PUBLISH', ARGV[1], lock) end
  return 1
end
local replies = {}
for i = 0, (#KEYS - 1) / 4 - 1 do
  local k, a = 1 + 4 * i, 2 + 2 * i
  replies[i + 1] = release(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], ARGV[a + 1], ARGV[a + 2])
end
return replies
