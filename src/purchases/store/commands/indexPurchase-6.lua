--[[
  Index a record written before the care lookups and the retention existed (`purchases
  reindex`): its identifier and reference entries, and its expiry when it is resolved. Only if
  it is still the version the caller read; adding what is there already changes nothing.

  KEYS[1] purchase record (hash: json, state, version)
  KEYS[2] idempotency key of the record (string)
  KEYS[3] subscriber identifier index (sorted set, score = createdAt ms)
  KEYS[4] external reference index (sorted set, score = createdAt ms)
  KEYS[5] provider reference index (sorted set; KEYS[4] again when none is known)
  KEYS[6] expiring set (sorted set, score = when the record may be purged, ms)

  ARGV[1] purchase id
  ARGV[2] version the caller read
  ARGV[3] createdAt score (ms)
  ARGV[4] when the record may be purged (ms), '' = keep (unresolved)
  ARGV[5] when Redis drops the record and key by itself (ms, after ARGV[4]), '' = never

  All keys share the hash tag {purchases}: one Cluster slot.

  Returns:
     1  indexed
    -2  the record changed (or went) since read: nothing written
]]
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then
  return -2
end
for i = 3, 5 do
  redis.call('ZADD', KEYS[i], ARGV[3], ARGV[1])
end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[6], ARGV[4], ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[5])
  redis.call('PEXPIREAT', KEYS[2], ARGV[5])
end
return 1
