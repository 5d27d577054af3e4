--[[
  A hop that calls no service, computed from the record the caller remembers, in one round
  trip: write its record if no hop holds the lock and the stored record is still that one (the
  lock, read, save and release of a hop as one atomic step). If the record changed, the caller
  gets what loadAndLock would have given it instead: the lock and the record, to do the hop again.

  KEYS[1] record key
  KEYS[2] lock key
  ARGV[1] the start of the record the caller computed from (`{"v":"<version>",`)
  ARGV[2] record JSON
  ARGV[3] record time to live, seconds
  ARGV[4] lock token, taken only when the record changed
  ARGV[5] lock time to live, milliseconds

  Returns
    {1}                      saved
    {3, record JSON or nil}  the record changed (or expired): nothing written, locked for the caller
    {-1}                     busy: another hop holds the lock (nothing written)
]]
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {-1}
end
-- Only the start is compared: the whole record is copied into Lua only when it changed.
if redis.call('GETRANGE', KEYS[1], 0, #ARGV[1] - 1) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return {1}
end
local raw = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
return {3, raw}
