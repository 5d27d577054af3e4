--[[
  Store an outbox entry once, newest first, in the list of all entries and in its
  recipient's list, both capped.

  KEYS[1] duplicate marker of the entry id (string, expires)
  KEYS[2] all entries (list, newest first)
  KEYS[3] the recipient's entries (list, newest first, expires)

  ARGV[1] entry JSON
  ARGV[2] cap (maximum list length)
  ARGV[3] time to live of the marker and the recipient list, seconds

  All keys share the hash tag {outbox}: one Cluster slot.

  Returns
     1  stored
    -1  an entry with this id was already stored: nothing changed
]]
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[3]) == false then
  return -1
end
local cap = tonumber(ARGV[2]) - 1
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, cap)
redis.call('LPUSH', KEYS[3], ARGV[1])
redis.call('LTRIM', KEYS[3], 0, cap)
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 1
