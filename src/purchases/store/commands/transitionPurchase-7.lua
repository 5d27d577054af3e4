--[[
  Compare-and-set a purchase record: write the new record only if its version (and so its
  state) is still the one the caller read. Keeps the state, unnotified, reference and expiring
  indexes in step, and sets (or clears) the record's expiry.

  KEYS[1] purchase record (hash: json, state, version)
  KEYS[2] index of the current state (sorted set)
  KEYS[3] index of the new state (sorted set)
  KEYS[4] unnotified set (sorted set)
  KEYS[5] idempotency key of the record (string; expires with it)
  KEYS[6] provider reference index (sorted set; the external reference's when none is known)
  KEYS[7] expiring set (sorted set, score = when the record may be purged, ms)

  ARGV[1] expected version
  ARGV[2] expected current state
  ARGV[3] new state
  ARGV[4] new version
  ARGV[5] new record JSON
  ARGV[6] purchase id
  ARGV[7] createdAt score (ms)
  ARGV[8] '1' = add to the unnotified set, '0' = remove from it
  ARGV[9] when the record may be purged (ms), '' = keep (unresolved)
  ARGV[10] when Redis drops the record and key by itself (ms, after ARGV[9]), '' = never

  All keys share the hash tag {purchases}: one Cluster slot.

  Returns:
     1  written
    -1  no such record
    -2  version or state changed since read (conflict)
]]
local current = redis.call('HMGET', KEYS[1], 'version', 'state')
if not current[1] then
  return -1
end
if current[1] ~= ARGV[1] or current[2] ~= ARGV[2] then
  return -2
end
redis.call('HSET', KEYS[1], 'json', ARGV[5], 'state', ARGV[3], 'version', ARGV[4])
if ARGV[2] ~= ARGV[3] then
  redis.call('ZREM', KEYS[2], ARGV[6])
  redis.call('ZADD', KEYS[3], ARGV[7], ARGV[6])
end
if ARGV[8] == '1' then
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[6])
else
  redis.call('ZREM', KEYS[4], ARGV[6])
end
redis.call('ZADD', KEYS[6], ARGV[7], ARGV[6])
if ARGV[9] ~= '' then
  redis.call('ZADD', KEYS[7], ARGV[9], ARGV[6])
  redis.call('PEXPIREAT', KEYS[1], ARGV[10])
  redis.call('PEXPIREAT', KEYS[5], ARGV[10])
else
  redis.call('ZREM', KEYS[7], ARGV[6])
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[5])
end
return 1
