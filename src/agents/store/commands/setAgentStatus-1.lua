--[[
  Disable an agent, or enable it (which also clears every lockout counter).

  KEYS[1] agent record (hash)

  ARGV[1] 'active' or 'disabled'
  ARGV[2] why disabled: 'operator', 'blocked' or 'lockouts' ('' when enabling)
  ARGV[3] now (ISO, the record's updatedAt)

  Returns:
    1   written
    -1  no such agent
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
if ARGV[1] == 'disabled' then
  redis.call('HSET', KEYS[1], 'status', 'disabled', 'disabledReason', ARGV[2], 'lockedUntil', '0', 'updatedAt', ARGV[3])
else
  redis.call('HSET', KEYS[1], 'status', 'active', 'disabledReason', '', 'failedAttempts', '0', 'lockedUntil', '0',
    'lockoutDay', '', 'lockoutsToday', '0', 'updatedAt', ARGV[3])
end
return 1
