--[[
  Write a dialogue's record and release its lock, only if the caller still holds the lock.

  KEYS[1] record key
  KEYS[2] lock key
  ARGV[1] lock token
  ARGV[2] record JSON
  ARGV[3] record time to live, seconds

  Returns
     1  saved and unlocked
    -2  lock lost (expired or taken by another hop): nothing written
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -2
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('DEL', KEYS[2])
return 1
