--[[
  Count one PIN attempt (the hash comparison was made by the caller) and apply the lockout
  rules; the same rules as applyPinAttempt in src/agents/lockout.ts. Atomic, so wrong PINs
  arriving at once over USSD and SMS all count.

  KEYS[1] agent record (hash)

  ARGV[1] PIN version the caller compared against
  ARGV[2] '1' the PIN matched, '0' it did not
  ARGV[3] now (ms)
  ARGV[4] local day of now (YYYY-MM-DD)
  ARGV[5] wrong attempts that lock
  ARGV[6] first lockout (ms); each further one of the day doubles it
  ARGV[7] lockouts in a day that disable
  ARGV[8] now (ISO, the record's updatedAt)

  Returns { code, value }:
    { 1, mustChangePin (0|1) }  the PIN was right
    { 2, attempts left }        wrong, not locked yet
    { 3, locked until (ms) }    locked (by this attempt or before it: then nothing counted)
    { 4, reason }               disabled (by this attempt or before it)
    { -1, 0 }                   no such agent
    { -2, 0 }                   the PIN changed since the caller read it: nothing counted
]]
local r = redis.call('HMGET', KEYS[1], 'status', 'disabledReason', 'lockedUntil', 'pinVersion',
  'mustChangePin', 'failedAttempts', 'lockoutDay', 'lockoutsToday')
if not r[1] then
  return { -1, 0 }
end
if r[1] == 'disabled' then
  if r[2] == nil or r[2] == '' then
    return { 4, 'operator' }
  end
  return { 4, r[2] }
end
local now = tonumber(ARGV[3])
local lockedUntil = tonumber(r[3]) or 0
if lockedUntil > now then
  return { 3, lockedUntil }
end
if r[4] ~= ARGV[1] then
  return { -2, 0 }
end
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'status', 'active', 'failedAttempts', '0', 'lockedUntil', '0', 'updatedAt', ARGV[8])
  return { 1, tonumber(r[5]) }
end
local maxAttempts = tonumber(ARGV[5])
local failed = (tonumber(r[6]) or 0) + 1
if failed < maxAttempts then
  redis.call('HSET', KEYS[1], 'status', 'active', 'failedAttempts', string.format('%d', failed),
    'lockedUntil', '0', 'updatedAt', ARGV[8])
  return { 2, maxAttempts - failed }
end
local lockouts = 1
if r[7] == ARGV[4] then
  lockouts = (tonumber(r[8]) or 0) + 1
end
redis.call('HSET', KEYS[1], 'failedAttempts', '0', 'lockoutDay', ARGV[4],
  'lockoutsToday', string.format('%d', lockouts), 'updatedAt', ARGV[8])
if lockouts >= tonumber(ARGV[7]) then
  redis.call('HSET', KEYS[1], 'status', 'disabled', 'disabledReason', 'lockouts', 'lockedUntil', '0')
  return { 4, 'lockouts' }
end
local untilMs = now + tonumber(ARGV[6]) * 2 ^ (lockouts - 1)
redis.call('HSET', KEYS[1], 'status', 'locked', 'lockedUntil', string.format('%d', untilMs))
return { 3, untilMs }
