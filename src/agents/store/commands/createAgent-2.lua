--[[
  Register an agent unless its MSISDN is taken.

  KEYS[1] agent record (hash)
  KEYS[2] index of all agents (sorted set, score = createdAt ms, member = MSISDN)

  ARGV[1]    MSISDN
  ARGV[2]    createdAt score (ms)
  ARGV[3..]  the record's fields and values, in pairs

  Both keys share the hash tag {agents}: one Cluster slot.

  Returns:
    1   created
    -3  the MSISDN is an agent already: nothing written
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  return -3
end
local fields = {}
for i = 3, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
