--[[
  Create a purchase record unless its idempotency key is already taken.

  KEYS[1] idempotency key -> purchase id (string)
  KEYS[2] purchase record (hash: json, state, version)
  KEYS[3] state index (sorted set, score = createdAt ms)
  KEYS[4] beneficiary MSISDN index (sorted set, score = createdAt ms)
  KEYS[5] requester MSISDN index (sorted set, score = createdAt ms)

  ARGV[1] purchase id
  ARGV[2] record JSON
  ARGV[3] state
  ARGV[4] version
  ARGV[5] createdAt score (ms)

  All keys share the hash tag {purchases}: one Cluster slot.

  Returns:
    { 1, id }   created
    { -3, id }  the key already names purchase `id`: nothing written
]]
local existing = redis.call('GET', KEYS[1])
if existing then
  return { -3, existing }
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'json', ARGV[2], 'state', ARGV[3], 'version', ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[5], ARGV[1])
return { 1, ARGV[1] }
