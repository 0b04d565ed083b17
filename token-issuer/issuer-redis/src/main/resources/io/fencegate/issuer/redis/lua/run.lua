-- Shared by the scripts that must know whether Redis's data may have been replaced since the
-- counter was checked. The counter's run key records two identities, and both must still hold:
-- - run_id (INFO server): a Redis that crashes and comes back from an older RDB snapshot, or an
--   AOF that lost its last second, still has a counter and a ceiling, only older ones. Every
--   start gets a new run_id, and a snapshot cannot bring back the live one. (master_replid
--   alone would not do: an RDB file carries the replication id, which a restart that loads it
--   may keep, for partial resyncs.)
-- - master_replid (INFO replication): run_id names the process, not its data. A master that
--   follows another server (REPLICAOF host port) replaces its data with that server's, also
--   with an older copy of its own (its former replica, detached before the last grants), and
--   keeps its run_id; promoted back (REPLICAOF NO ONE), it would hand out those grants again.
--   Every change of role gives the server a new master_replid, so the check fails and the
--   counter is moved up to the durable mark. master_replid2 (the id of the history it
--   continues) is not accepted in its place: replication is asynchronous, so a server that
--   continues our history may still lack its last writes.
-- INFO is allowed in scripts, so the check and the INCR are one atomic step: a command re-sent
-- after a reconnect is judged against the live identity too. What neither id sees: an older
-- copy of the keys put back inside one run and role (DEBUG RELOAD NOSAVE of an older RDB, SWAPDB
-- or MOVE/COPY/RESTORE of saved keys); only the highest-token check of the issuers that handed
-- out the newer tokens catches those.

local function info_id(section, field)
  return string.match(redis.call('INFO', section), field .. ':(%x+)')
end
local function live_run_id()
  return info_id('server', 'run_id') .. ':' .. info_id('replication', 'master_replid')
end
local function run_floor_of(run, run_proven)
  if not run then return nil end
  local id, replid, floor = string.match(run, '^(%x+):(%x+):(%d+)$')
  if not floor or replid ~= info_id('replication', 'master_replid') then return nil end
  if not run_proven and id ~= info_id('server', 'run_id') then return nil end
  return tonumber(floor)
end
local function run_floor(key)
  return run_floor_of(redis.call('GET', key), false)
end
