-- KEYS: live index, holders. ARGV: lock-key prefix, lock prefix, after (or ''), limit, most
-- index entries to examine, readers-key prefix, grants-key prefix. The index (a sorted set of lock names, all scored 0, so ordered by
-- bytes) gains a lock at each grant and loses it at release; an entry whose lock key is gone
-- (expired) is removed here, atomically with the check, so a racing grant's entry survives.
-- Answers {last examined ('' for none), 1 if entries remain after it, lock, token, pttl,
-- holder, mode ('w' or 'r'), lock, ...}. A lock held by read leases (its key says 'r', see
-- read-acquire.lua) gives one entry per live read lease, from its readers hash: a page ends
-- after whole locks, so it may hold more leases than the limit.
-- A write lease's holder is its grant's member in the lock's grant log (instance:token, see
-- acquire.lua); a grant made by a version before that has a bare token there and its holder in
-- the holders hash (token:instance), which is read then. Listing is not the hot path: a lookup
-- here costs nothing at acquire and release. A lease's remaining time leaves out its key's margin
-- (see expiry-margin.lua, which the issuer puts in front of this script).

local prefix = ARGV[2]
local max = '+'
if #prefix > 0 then
  max = '(' .. string.sub(prefix, 1, -2) .. string.char(string.byte(prefix, -1) + 1)
end
local min = '-'
if #ARGV[3] > 0 then min = '(' .. ARGV[3] elseif #prefix > 0 then min = '[' .. prefix end
local limit = tonumber(ARGV[4])
local cap = tonumber(ARGV[5])
local function holder(lock, token)
  local member = redis.call('ZRANGEBYSCORE', ARGV[7] .. lock, token, token, 'LIMIT', 0, 1)[1]
  local by = member and string.match(member, '^(.+):%d+$')
  if by then return token .. ':' .. by end
  return redis.call('HGET', KEYS[2], lock) or ''
end
local out = {}
local found = 0
local examined = 0
local last = ''
while found < limit and examined < cap do
  local batch = redis.call('ZRANGEBYLEX', KEYS[1], min, max, 'LIMIT', 0, limit)
  if #batch == 0 then break end
  for _, lock in ipairs(batch) do
    examined = examined + 1
    last = lock
    local value = redis.call('GET', ARGV[1] .. lock)
    if value == 'r' then
      local t = redis.call('TIME')
      local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      local readers = redis.call('HGETALL', ARGV[6] .. lock)
      for r = 1, #readers, 2 do
        local token, ttl, expires, holder = string.match(readers[r + 1], '^(%d+):(%d+):%d+:(%d+):(.*)$')
        expires = tonumber(expires) - margin_ms(ttl)
        if expires > now then
          found = found + 1
          out[#out + 1] = lock
          out[#out + 1] = token
          out[#out + 1] = expires - now
          out[#out + 1] = token .. ':' .. holder
          out[#out + 1] = 'r'
        end
      end
    elseif value then
      found = found + 1
      local token, ttl = string.match(value, '^%x+:(%d+):(%d+)$')
      token = token or '0'
      out[#out + 1] = lock
      out[#out + 1] = token
      out[#out + 1] = redis.call('PTTL', ARGV[1] .. lock) - margin_ms(ttl or 0)
      out[#out + 1] = holder(lock, token)
      out[#out + 1] = 'w'
    else
      redis.call('ZREM', KEYS[1], lock)
      redis.call('HDEL', KEYS[2], lock)
    end
    if found >= limit or examined >= cap then break end
  end
  min = '(' .. last
end
local more = 0
if last ~= '' and #redis.call('ZRANGEBYLEX', KEYS[1], '(' .. last, max, 'LIMIT', 0, 1) > 0 then more = 1 end
local reply = {last, more}
for _, v in ipairs(out) do reply[#reply + 1] = v end
return reply
