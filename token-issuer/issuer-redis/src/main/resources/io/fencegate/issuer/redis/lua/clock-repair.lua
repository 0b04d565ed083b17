-- Repairs a step of Redis's wall clock ahead, atomically. KEYS: lease-clock offset, last repair,
-- live index. ARGV: earliest, highest (the lease clock the issuer expects now at the earliest and,
-- with its tolerance, at the latest, see RedisClock), lock-key prefix, delay-key prefix,
-- readers-key prefix, tolerance ms. Answers {0, lease clock} when the lease clock is not past
-- highest (another issuer repaired this step first, or it was no step), else {1, lease clock
-- after the repair, step ms, leases lengthened, locks held off}.
-- The step is taken at its largest (lease clock minus earliest): a lease then lives a little
-- longer than its holder counts, never shorter.
-- Every lock in the live index (granted and not released):
-- - its key is still there: its expiry, and its lock-delay's, move ahead by the step, so it ends
--   when its holder's ttl does; a read lease's entries (expiresAt on Redis's clock, see
--   read-acquire.lua) move with it.
-- - its key has gone: the step may have ended it early, and its holder may hold it for up to the
--   step more; it gets a lock-delay of the step (and the tolerance), the delay every grant honours
--   (token 0: no release ends it), unless a longer one runs.
-- Then the offset grows by the step, so the lease clock runs on its course for every issuer, and
-- the record says until when locks are held off, for every issuer's health.
-- Its cost grows with the live index (a few commands a lock), once a step.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local offset = tonumber(redis.call('GET', KEYS[1]) or '0')
local lease_clock = now - offset
if lease_clock <= tonumber(ARGV[2]) then return {0, lease_clock} end
local step = lease_clock - tonumber(ARGV[1])
local hold_off = step + tonumber(ARGV[6])
local lengthened, held_off = 0, 0
for _, lock in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  local lock_key, delay_key = ARGV[3] .. lock, ARGV[4] .. lock
  local pttl = redis.call('PTTL', lock_key)
  local delayed = redis.call('PTTL', delay_key)
  if delayed > 0 then redis.call('PEXPIRE', delay_key, delayed + step) end
  if pttl > 0 then
    redis.call('PEXPIRE', lock_key, pttl + step)
    if redis.call('GET', lock_key) == 'r' then
      local readers = ARGV[5] .. lock
      local entries = redis.call('HGETALL', readers)
      for i = 1, #entries, 2 do
        local token, ttl, delay, expires, by = string.match(entries[i + 1], '^(%d+):(%d+):(%d+):(%d+):(.*)$')
        if expires then
          redis.call('HSET', readers, entries[i], token .. ':' .. ttl .. ':' .. delay .. ':' .. (tonumber(expires) + step) .. ':' .. by)
        end
      end
      local kept = redis.call('PTTL', readers)
      if kept > 0 then redis.call('PEXPIRE', readers, kept + step) end
    end
    lengthened = lengthened + 1
  else
    if delayed + step < hold_off then redis.call('SET', delay_key, '0:' .. hold_off, 'PX', hold_off) end
    held_off = held_off + 1
  end
end
redis.call('SET', KEYS[1], offset + step)
redis.call('SET', KEYS[2], (lease_clock - step + hold_off) .. ':' .. step .. ':' .. held_off)
return {1, lease_clock - step, step, lengthened, held_off}
