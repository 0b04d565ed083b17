-- KEYS: mark, counter, ceiling. ARGV: this issuer's mark identity, 'check' or 'adopt', and (for
-- 'adopt') the mark's value, just raised above what 'check' answered.
-- Why: the durable mark covers Redis's counter only if every issuer on the prefix shares it. The
-- first issuer records its mark's identity here; an issuer bringing another mark is refused
-- ({-3, recorded identity}) instead of reserving blocks its mark does not cover (after a loss of
-- the counter, a lower mark would hand out tokens again).
-- 'check' answers {1} if the recorded identity is this one, {0, counter, ceiling} if none is
-- recorded (first start, a Redis that lost its keys, an operator who deleted the key to give the
-- prefix a new mark): the issuer then raises its mark above both before it 'adopt's.
-- 'adopt' records the identity unless another one was recorded meanwhile, or the ceiling went
-- past the raised mark ({0, counter, ceiling}: check again).

local recorded = redis.call('GET', KEYS[1])
if recorded == ARGV[1] then return {1} end
if recorded then return {-3, recorded} end
local counter = redis.call('GET', KEYS[2]) or '0'
local ceiling = redis.call('GET', KEYS[3]) or '0'
if ARGV[2] == 'adopt' and tonumber(ceiling) <= tonumber(ARGV[3]) and tonumber(counter) <= tonumber(ARGV[3]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return {1}
end
return {0, counter, ceiling}
