--[[
  Record a provider's delivery report on a notification, and act on a failed one.

  KEYS[1] notification record (JSON string)

  ARGV[1] delivery JSON ({state, providerStatus, failureReason, at})
  ARGV[2] 'retry'  (a sent message came back failed: queue it again),
          'giveup' (failed again past the policy: undelivered, for an operator),
          'note'   (only record the report)
  ARGV[3] updatedAt (ISO 8601)

  Returns the record JSON after the call, or nil when there is no such record.
]]
local raw = redis.call('GET', KEYS[1])
if not raw then
  return false
end
local record = cjson.decode(raw)
local delivery = cjson.decode(ARGV[1])
record.delivery = delivery
record.updatedAt = ARGV[3]
if record.status == 'sent' and ARGV[2] == 'retry' then
  record.status = 'queued'
  record.deliveryFailures = (record.deliveryFailures or 0) + 1
  record.lastError = 'delivery failed: ' .. (delivery.failureReason or delivery.providerStatus)
elseif record.status == 'sent' and ARGV[2] == 'giveup' then
  record.status = 'undelivered'
  record.deliveryFailures = (record.deliveryFailures or 0) + 1
  record.lastError = 'delivery failed: ' .. (delivery.failureReason or delivery.providerStatus)
end
local out = cjson.encode(record)
redis.call('SET', KEYS[1], out, 'KEEPTTL')
return out
