--[[
  Take a previous dialogue for resumption: if it is resumable, replace it by a tombstone
  (status "moved", no snapshot, same TTL, replay fields kept) and return it as it was.

  KEYS[1] record key of the previous dialogue
  KEYS[2] its lock key
  ARGV[1] minimum updatedAt, epoch milliseconds
  ARGV[2] now, epoch milliseconds
  ARGV[3..] the machine versions the caller can continue (a record of another is not taken)

  Returns
    record JSON  taken
    nil          absent, locked (a hop is running), or not resumable
]]
if redis.call('EXISTS', KEYS[2]) == 1 then
  return nil
end
local raw = redis.call('GET', KEYS[1])
if not raw then
  return nil
end
local ok, rec = pcall(cjson.decode, raw)
if not ok or type(rec) ~= 'table' then
  return nil
end
local status = rec['status']
if status ~= 'active' and status ~= 'incomplete' and status ~= 'failed' then
  return nil
end
if rec['snapshot'] == nil or rec['snapshot'] == cjson.null then
  return nil
end
if tonumber(rec['updatedAt']) < tonumber(ARGV[1]) then
  return nil
end
local known = false
for i = 3, #ARGV do
  if rec['machineVersion'] == ARGV[i] then
    known = true
    break
  end
end
if not known then
  return nil
end
local tombstone = {
  machineVersion = rec['machineVersion'],
  snapshot = cjson.null,
  msisdn = rec['msisdn'],
  serviceCode = rec['serviceCode'],
  lastText = rec['lastText'],
  lastRequestKey = rec['lastRequestKey'],
  lastReply = rec['lastReply'],
  page = 1,
  pages = 1,
  optionIds = {},
  language = rec['language'],
  status = 'moved',
  hops = rec['hops'],
  createdAt = rec['createdAt'],
  updatedAt = tonumber(ARGV[2]),
}
redis.call('SET', KEYS[1], cjson.encode(tombstone), 'KEEPTTL')
return raw
