-- KEYS: counter, ceiling, run, mark. ARGV: durable mark, highest token the calling issuer has
-- seen, the mark's identity ('' for a mark without one: not checked).
-- Runs while the mark is frozen. Re-creates counter and ceiling at the largest of mark /
-- surviving counter / surviving ceiling, so nothing goes back, and records the live run with
-- that value as its floor. A no-op (0) if the counter is whole and was checked under the live
-- run (a racing issuer recovered first). Answers 1 if both keys were lost, 2 if one was,
-- 3 if both survived a restart (possibly rolled back from a snapshot), -3 (changing nothing) if
-- another mark's identity is recorded: that mark, not this one, covers the tokens handed out.
-- A re-created counter records this mark's identity (it is the mark the counter restarts from).
-- Runs after run.lua, which the issuer puts in front of it.

if ARGV[3] ~= '' then
  local recorded = redis.call('GET', KEYS[4])
  if recorded and recorded ~= ARGV[3] then return -3 end
end
local counter = redis.call('GET', KEYS[1])
local ceiling = redis.call('GET', KEYS[2])
if counter and ceiling and run_floor(KEYS[3]) and tonumber(counter) >= tonumber(ARGV[2]) then
  return 0
end
local value = ARGV[1]
if counter and tonumber(counter) > tonumber(value) then value = counter end
if ceiling and tonumber(ceiling) > tonumber(value) then value = ceiling end
if tonumber(ARGV[2]) > tonumber(value) then value = ARGV[2] end
redis.call('SET', KEYS[1], value)
redis.call('SET', KEYS[2], value)
redis.call('SET', KEYS[3], live_run_id() .. ':' .. value)
if ARGV[3] ~= '' then redis.call('SET', KEYS[4], ARGV[3]) end
if counter and ceiling then return 3 end
if counter or ceiling then return 2 end
return 1
