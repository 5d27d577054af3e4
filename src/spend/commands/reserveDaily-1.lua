--[[
  Count one sale against a subscriber number's daily limits, once per purchase key.

  KEYS[1] the number's day (hash: value, count, and k:<purchase key> = amount, or "released"
          once releaseDaily gave it back: a key is counted at most once, released or not)

  ARGV[1] purchase key  ARGV[2] amount (minor units)  ARGV[3] max value  ARGV[4] max count
  ARGV[5] time to live (ms)

  Returns {1, value, count} counted (or counted before under this key),
          {-1, value, count} over the value limit, {-2, value, count} over the count limit.
]]
local value = tonumber(redis.call('HGET', KEYS[1], 'value') or '0')
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0')
if redis.call('HEXISTS', KEYS[1], 'k:' .. ARGV[1]) == 1 then
  return { 1, value, count }
end
local amount = tonumber(ARGV[2])
if value + amount > tonumber(ARGV[3]) then return { -1, value, count } end
if count + 1 > tonumber(ARGV[4]) then return { -2, value, count } end
redis.call('HINCRBY', KEYS[1], 'value', amount)
redis.call('HINCRBY', KEYS[1], 'count', 1)
redis.call('HSET', KEYS[1], 'k:' .. ARGV[1], amount)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return { 1, value + amount, count + 1 }
