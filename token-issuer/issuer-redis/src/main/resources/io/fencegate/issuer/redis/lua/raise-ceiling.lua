-- KEYS: counter, ceiling, mark. ARGV: new ceiling, the identity of the mark it was reserved in
-- ('' for a mark without one: not checked). Only ever raises; never creates a lost counter
-- (answers -1 then, and the next acquire recovers it from the durable mark). Answers -3 if
-- another mark's identity is recorded (the block is not this Redis's to use), -4 if none is (the
-- issuer records its own first, see claim-mark.lua), 1 when done.

local counter = redis.call('GET', KEYS[1])
local ceiling = redis.call('GET', KEYS[2])
if not counter or not ceiling then return -1 end
if ARGV[2] ~= '' then
  local recorded = redis.call('GET', KEYS[3])
  if not recorded then return -4 end
  if recorded ~= ARGV[2] then return -3 end
end
if tonumber(ARGV[1]) > tonumber(ceiling) then redis.call('SET', KEYS[2], ARGV[1]) end
return 1
