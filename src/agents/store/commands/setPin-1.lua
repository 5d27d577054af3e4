--[[
  Write a new PIN hash (the PIN itself never reaches Redis) and bump the PIN version.

  KEYS[1] agent record (hash)

  ARGV[1] hash (base64)
  ARGV[2] salt (base64)
  ARGV[3] scrypt parameters (JSON)
  ARGV[4] mustChangePin: '1' or '0'
  ARGV[5] PIN version the caller verified ('' for an operator reset: any version)
  ARGV[6] '1' an operator reset: clear wrong attempts and lockouts, and lift a lockout or a
          disable caused by lockouts; '0' otherwise
  ARGV[7] now (ISO, the record's updatedAt)

  Returns:
    1   written
    -1  no such agent
    -2  the PIN version is not ARGV[5]: nothing written
]]
local r = redis.call('HMGET', KEYS[1], 'pinVersion', 'status', 'disabledReason')
if not r[1] then
  return -1
end
if ARGV[5] ~= '' and ARGV[5] ~= r[1] then
  return -2
end
redis.call('HSET', KEYS[1], 'pinHash', ARGV[1], 'pinSalt', ARGV[2], 'pinParams', ARGV[3],
  'pinVersion', string.format('%d', tonumber(r[1]) + 1), 'mustChangePin', ARGV[4], 'updatedAt', ARGV[7])
if ARGV[6] == '1' then
  redis.call('HSET', KEYS[1], 'failedAttempts', '0', 'lockedUntil', '0', 'lockoutDay', '', 'lockoutsToday', '0')
  if r[2] == 'locked' or r[3] == 'lockouts' then
    redis.call('HSET', KEYS[1], 'status', 'active', 'disabledReason', '')
  end
end
return 1
