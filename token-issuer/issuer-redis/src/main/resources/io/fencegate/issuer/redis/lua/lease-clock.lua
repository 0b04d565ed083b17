-- Shared by the granting scripts (acquire.lua, read-acquire.lua, permit.lua; the issuer puts it in
-- front of them). Redis ends a lease when its key's expiry passes on Redis's wall clock, while the
-- holder counts its ttl on its own monotonic clock: a step of Redis's clock ahead ends leases early
-- in Redis's eyes only. So a grant, which may hand on a lock whose key has just gone, first checks
-- the lease clock: Redis's TIME minus the offset in the lease-clock key (what the issuers added up
-- of the steps they repaired, see clock-repair.lua), against the highest the issuer expects from
-- its monotonic course (see RedisClock). Past it, the grant changes nothing and answers
-- {-4, lease clock ms}: the issuer reads the clock, repairs the step, and sends the grant again.
-- An empty highest skips the check (an issuer with no reading yet).
-- clock_refusal(offset) answers that reply, or nil; TIME is read once per call (a batch's acquires
-- run at one instant: no key expires while a script runs).

local clock_checked = false
local function clock_refusal(offset, highest)
  if clock_checked or highest == '' then return nil end
  local t = redis.call('TIME')
  local lease_clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(offset or 0)
  if lease_clock > tonumber(highest) then return {-4, lease_clock} end
  clock_checked = true
  return nil
end
