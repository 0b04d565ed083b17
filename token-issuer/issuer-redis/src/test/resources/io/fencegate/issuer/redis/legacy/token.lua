-- Shared by read-acquire.lua and permit.lua (the issuer puts it after run.lua, in front of them):
-- the token rules of acquire.lua, for scripts that grant one lease per call.
-- next_token(counter, ceiling, run, highest) answers the next token (after INCR of KEYS[1], the
-- counter) or the reply to send instead: {-1} for a counter that is missing, not checked under
-- the live run and replication id, or below a token the issuer saw; {-2, counter} when the
-- ceiling is reached. Why each refusal: see acquire.lua. These scripts always check the whole
-- run (no RunCheckShortcut): they are not the hot path.
-- record_grant(grants, member, token, lock, kept, retention_ms) indexes the grant for listings
-- (live index KEYS[4]) and wasGranted/grantedMode (the grants log, trimmed as in acquire.lua); a
-- write grant's member is instance .. ':' .. token (its holder, for the listing, see acquire.lua),
-- a read grant's token .. 'r', so the log keeps its mode (a read lease's holder is in its
-- readers hash). KEYS[5], the holders hash, is no longer written (see acquire.lua).
-- now_ms() is the server's clock in ms (scripts replicate effects, so TIME is allowed).

local function next_token(counter, ceiling, run, highest)
  if not run_floor_of(run, false) then return nil, {-1} end
  if not counter or not ceiling then return nil, {-1} end
  if tonumber(counter) < tonumber(highest) then return nil, {-1} end
  if tonumber(counter) + 1 > tonumber(ceiling) then return nil, {-2, counter} end
  return redis.call('INCR', KEYS[1]), nil
end
local function record_grant(grants, member, token, lock, kept, retention_ms)
  redis.call('ZADD', KEYS[4], 0, lock)
  redis.call('ZADD', grants, token, member)
  if redis.call('ZCARD', grants) > kept + math.floor(kept / 8) then
    redis.call('ZREMRANGEBYRANK', grants, 0, -kept - 1)
  end
  redis.call('PEXPIRE', grants, retention_ms)
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
