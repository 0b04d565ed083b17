-- KEYS: readers, run, released-marker. ARGV: secret. Answers {1, token, remaining ms} while the
-- read lease lives, {-1} once released (the marker), else {0} (expired, or granted before Redis
-- restarted: see renew.lua). Read only: find and the expiry watch. Runs after run.lua and token.lua.

local entry = redis.call('HGET', KEYS[1], ARGV[1])
if entry then
  local token, expires = string.match(entry, '^(%d+):%d+:%d+:(%d+):')
  local left = tonumber(expires) - now_ms()
  local floor = run_floor(KEYS[2])
  if left > 0 and floor and tonumber(token) > floor then return {1, token, left} end
end
if redis.call('EXISTS', KEYS[3]) == 1 then return {-1} end
return {0}
