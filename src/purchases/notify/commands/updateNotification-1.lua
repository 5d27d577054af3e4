--[[
  Merge a patch into a notification record unless it reached a final status
  (sent, rejected, undelivered), so a stale worker cannot turn `sent` back into `queued`.

  KEYS[1] notification record (JSON string)

  ARGV[1] patch JSON (already carrying updatedAt)

  Returns
    record JSON after the call (unchanged when final)
    nil          no such record
]]
local raw = redis.call('GET', KEYS[1])
if not raw then
  return false
end
local record = cjson.decode(raw)
if record.status == 'sent' or record.status == 'rejected' or record.status == 'undelivered' then
  return raw
end
for k, v in pairs(cjson.decode(ARGV[1])) do
  record[k] = v
end
local out = cjson.encode(record)
redis.call('SET', KEYS[1], out, 'KEEPTTL')
return out
