-- KEYS: lease-clock offset, last repair. Answers {lease clock ms, offset ms, last repair or ''}:
-- the reading an issuer judges its course by (see RedisClock), and the record of the last step
-- repaired ('heldOffUntil:stepMs:locks', lease clock), so every issuer reports the locks still held
-- off, not only the one that repaired it. Read only.

local t = redis.call('TIME')
local state = redis.call('MGET', KEYS[1], KEYS[2])
local offset = tonumber(state[1] or '0')
return {tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - offset, offset, state[2] or ''}
