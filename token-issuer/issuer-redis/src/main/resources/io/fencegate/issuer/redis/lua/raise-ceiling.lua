-- KEYS: counter, ceiling. ARGV: new ceiling. Only ever raises; never creates a lost counter
-- (answers -1 then, and the next acquire recovers it from the durable mark).

local counter = redis.call('GET', KEYS[1])
local ceiling = redis.call('GET', KEYS[2])
if not counter or not ceiling then return -1 end
if tonumber(ARGV[1]) > tonumber(ceiling) then redis.call('SET', KEYS[2], ARGV[1]) end
return 1
