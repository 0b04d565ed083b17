-- KEYS: readers, run, released-marker. ARGV: secret. Answers {1, token, remaining ms} while the
-- read lease lives, {-1} once released (the marker), else {0} (expired, or granted before Redis
-- restarted: see renew.lua). Read only: find and the expiry watch. The remaining time leaves out
-- the entry's margin (see expiry-margin.lua). Runs after run.lua, expiry-margin.lua and token.lua.

local entry = redis.call('HGET', KEYS[1], ARGV[1])
if entry then
  local token, ttl, expires = string.match(entry, '^(%d+):(%d+):%d+:(%d+):')
  local left = tonumber(expires) - margin_ms(ttl) - now_ms()
  local floor = run_floor(KEYS[2])
  if left > 0 and floor and tonumber(token) > floor then return {1, token, left} end
end
if redis.call('EXISTS', KEYS[3]) == 1 then return {-1} end
return {0}
