--[[
  Take a dialogue's lock and read its record in one round trip.

  KEYS[1] record key (JSON string)
  KEYS[2] lock key
  ARGV[1] lock token (random, chosen by the caller)
  ARGV[2] lock time to live, milliseconds

  Returns
    {1, record JSON or nil}  locked (record nil when the dialogue is new or expired)
    {-1}                     busy: another hop holds the lock
]]
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('GET', KEYS[1])}
end
return {-1}
