--[[
  Release a dialogue's lock without writing, only if the caller holds it.

  KEYS[1] lock key
  ARGV[1] lock token

  Returns
    1  released
   -2  not the holder (expired or taken): nothing changed
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return -2
