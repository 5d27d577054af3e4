--[[
  Take a dialogue's lock and read its record in one round trip.

  KEYS[1] record key (JSON string)
  KEYS[2] lock key
  ARGV[1] lock token (random, chosen by the caller)
  ARGV[2] lock time to live, milliseconds
  ARGV[3] the start of the record the caller remembers (`{"v":"<version>",`), or empty

  Returns
    {1, record JSON or nil}  locked (record nil when the dialogue is new or expired)
    {2}                      locked, and the record is still the one the caller remembers
    {-1}                     busy: another hop holds the lock
]]
if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {-1}
end
-- Only the start is compared: the whole record is copied into Lua only when it is sent back.
if ARGV[3] ~= '' and redis.call('GETRANGE', KEYS[1], 0, #ARGV[3] - 1) == ARGV[3] then
  return {2}
end
return {1, redis.call('GET', KEYS[1])}
