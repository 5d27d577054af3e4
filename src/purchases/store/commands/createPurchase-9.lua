--[[
  Create a purchase record unless its idempotency key is already taken.

  KEYS[1] idempotency key -> purchase id (string)
  KEYS[2] purchase record (hash: json, state, version)
  KEYS[3] state index (sorted set, score = createdAt ms)
  KEYS[4] beneficiary MSISDN index (sorted set, score = createdAt ms)
  KEYS[5] requester MSISDN index (sorted set, score = createdAt ms)
  KEYS[6] subscriber identifier index (sorted set, score = createdAt ms)
  KEYS[7] external reference index (sorted set, score = createdAt ms)
  KEYS[8] provider reference index (a record created settled, e.g. recovered; else KEYS[7] again)
  KEYS[9] expiring set (sorted set, score = when the record may be purged, ms)

  ARGV[1] purchase id
  ARGV[2] record JSON
  ARGV[3] state
  ARGV[4] version
  ARGV[5] createdAt score (ms)
  ARGV[6] when the record may be purged (ms), '' = keep (unresolved)
  ARGV[7] when Redis drops the record and key by itself (ms, after ARGV[6]), '' = never

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
for i = 3, 8 do
  redis.call('ZADD', KEYS[i], ARGV[5], ARGV[1])
end
if ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[9], ARGV[6], ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[7])
  redis.call('PEXPIREAT', KEYS[2], ARGV[7])
end
return { 1, ARGV[1] }
