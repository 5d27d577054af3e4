--[[
  Give back a sale counted by reserveDaily (the purchase failed and nothing was charged).
  The purchase key stays marked, so a re-delivered reserve under it never counts it again.

  KEYS[1] the number's day (hash: value, count, and k:<purchase key> = amount, or "released")

  ARGV[1] purchase key

  Returns {1, value, count} given back, {0, value, count} nothing counted under this key
  (never counted, or given back before).
]]
local field = 'k:' .. ARGV[1]
local amount = redis.call('HGET', KEYS[1], field)
local value = tonumber(redis.call('HGET', KEYS[1], 'value') or '0')
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0')
if not amount or amount == 'released' then return { 0, value, count } end
value = redis.call('HINCRBY', KEYS[1], 'value', -tonumber(amount))
count = redis.call('HINCRBY', KEYS[1], 'count', -1)
redis.call('HSET', KEYS[1], field, 'released')
return { 1, value, count }
