--[[
  Delete a record past its retention with every index entry naming it, unless it changed since
  the caller read it (then the next purge judges it again).

  KEYS[1] purchase record (hash: json, state, version)
  KEYS[2] idempotency key of the record (string)
  KEYS[3] index of its state (sorted set)
  KEYS[4] beneficiary MSISDN index (sorted set)
  KEYS[5] requester MSISDN index (sorted set)
  KEYS[6] subscriber identifier index (sorted set)
  KEYS[7] external reference index (sorted set)
  KEYS[8] provider reference index (sorted set; KEYS[7] again when none is known)
  KEYS[9] unnotified set (sorted set)
  KEYS[10] expiring set (sorted set)

  ARGV[1] purchase id
  ARGV[2] version the caller read

  All keys share the hash tag {purchases}: one Cluster slot.

  Returns:
     1  purged
    -2  the record changed since read: nothing deleted
]]
local version = redis.call('HGET', KEYS[1], 'version')
if version and version ~= ARGV[2] then
  return -2
end
redis.call('DEL', KEYS[1])
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
for i = 3, 10 do
  redis.call('ZREM', KEYS[i], ARGV[1])
end
return 1
