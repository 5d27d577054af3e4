--[[
  Hold an amount for a sale before its purchase is created: the day's limits are checked and
  counted, and (float funding) the float is checked and debited, all at once, so concurrent
  sales can never take the float below zero or the day past its limits. Once per purchase key.

  KEYS[1] float account (hash: balance, held, seq)
  KEYS[2] entries (list of JSON, oldest first)
  KEYS[3] reservations (hash: purchase key -> '<state>|<amount>|<day>|<funding>')
  KEYS[4] day counters (hash: '<day>|value', '<day>|count')

  ARGV[1] purchase key
  ARGV[2] amount (minor units, positive)
  ARGV[3] funding: 'float' (debit the float) or 'account' (limits only)
  ARGV[4] max per sale (minor units)
  ARGV[5] max value per day (minor units)
  ARGV[6] max sales per day
  ARGV[7] local day (YYYY-MM-DD)
  ARGV[8] the entry's other fields as a JSON object ({"kind":"reserve","at":...,"purchaseKey":...})

  All keys share the agent's hash tag {<msisdn>}: one Cluster slot.

  Returns:
    { 1, reservation, entry JSON or '' }   reserved
    { 2, reservation }                     the key holds a reservation of this amount: nothing written
    { -1, reservation }                    the key holds a reservation of another amount: nothing written
    { -2, available }                      the float does not cover it: nothing written
    { -3, limit, 0 }                       over the maximum per sale
    { -4, limit, value used today }        over the day's value
    { -5, limit, sales today }             over the day's count
]]
local function int(n)
  return string.format('%d', n)
end
local existing = redis.call('HGET', KEYS[3], ARGV[1])
if existing then
  if string.match(existing, '^%a+|(%d+)|') == ARGV[2] then
    return { 2, existing }
  end
  return { -1, existing }
end
local amount = tonumber(ARGV[2])
if amount > tonumber(ARGV[4]) then
  return { -3, ARGV[4], '0' }
end
local dayValue = tonumber(redis.call('HGET', KEYS[4], ARGV[7] .. '|value') or '0')
local dayCount = tonumber(redis.call('HGET', KEYS[4], ARGV[7] .. '|count') or '0')
if dayValue + amount > tonumber(ARGV[5]) then
  return { -4, ARGV[5], int(dayValue) }
end
if dayCount + 1 > tonumber(ARGV[6]) then
  return { -5, ARGV[6], int(dayCount) }
end
local entry = ''
if ARGV[3] == 'float' then
  local available = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
  if available < amount then
    return { -2, available }
  end
  available = redis.call('HINCRBY', KEYS[1], 'balance', '-' .. ARGV[2])
  local held = redis.call('HINCRBY', KEYS[1], 'held', ARGV[2])
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  entry = '{"seq":' .. int(seq) .. ',"amountMinor":' .. ARGV[2] .. ',"deltaMinor":-' .. ARGV[2] ..
    ',"balanceMinor":' .. int(available) .. ',"heldMinor":' .. int(held) .. ',' .. string.sub(ARGV[8], 2)
  redis.call('RPUSH', KEYS[2], entry)
end
redis.call('HINCRBY', KEYS[4], ARGV[7] .. '|value', ARGV[2])
redis.call('HINCRBY', KEYS[4], ARGV[7] .. '|count', 1)
local reservation = 'held|' .. ARGV[2] .. '|' .. ARGV[7] .. '|' .. ARGV[3]
redis.call('HSET', KEYS[3], ARGV[1], reservation)
return { 1, reservation, entry }
