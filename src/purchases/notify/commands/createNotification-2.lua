--[[
  Store a notification once and index it under its purchase.

  KEYS[1] notification record (JSON string)
  KEYS[2] the purchase's notification index (sorted set, score = creation ms)

  ARGV[1] record JSON
  ARGV[2] notification id
  ARGV[3] creation time, epoch milliseconds
  ARGV[4] time to live of record and index, seconds

  Both keys share the purchase's hash tag {<purchaseId>}: one Cluster slot.

  Returns
     1  stored
    -1  a notification with this id exists: nothing changed
]]
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[4]) == false then
  return -1
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
