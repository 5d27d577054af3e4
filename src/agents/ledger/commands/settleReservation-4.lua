--[[
  A sale succeeded: its reservation is spent (the float's held amount goes down, the
  available balance stays). Once per purchase key: a second settle changes nothing.

  A success found after the reservation was released (a "no charge found" verdict corrected
  by a later re-check: the customer got the token after all) takes the amount from the float
  again and counts it against its day again, when the float covers it; never below zero.

  KEYS[1] float account (hash: balance, held, seq)
  KEYS[2] entries (list of JSON, oldest first)
  KEYS[3] reservations (hash: purchase key -> '<state>|<amount>|<day>|<funding>')
  KEYS[4] day counters (hash: '<day>|value', '<day>|count')

  ARGV[1] purchase key
  ARGV[2] the entry's other fields as a JSON object ({"kind":"settle","at":...,"purchaseKey":...})
  ARGV[3] the same for a settle after a release (with its note)

  All keys share the agent's hash tag {<msisdn>}: one Cluster slot.

  Returns:
    { 1, reservation, entry JSON or '' }   settled (after a release too)
    { 2, reservation }                     settled before: nothing written
    { -1 }                                 no reservation under this key
    { -2, available, reservation }         released before, and the float no longer covers it: nothing written
]]
local function int(n)
  return string.format('%d', n)
end
local hold = redis.call('HGET', KEYS[3], ARGV[1])
if not hold then
  return { -1 }
end
local state, amount, day, funding = string.match(hold, '^(%a+)|(%d+)|([^|]*)|(%a+)$')
if state == 'settled' then
  return { 2, hold }
end
local settled = 'settled|' .. amount .. '|' .. day .. '|' .. funding
local entry = ''
if state == 'released' then
  if funding == 'float' then
    local available = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
    if available < tonumber(amount) then
      return { -2, available, hold }
    end
    available = redis.call('HINCRBY', KEYS[1], 'balance', '-' .. amount)
    local held = tonumber(redis.call('HGET', KEYS[1], 'held') or '0')
    local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
    entry = '{"seq":' .. int(seq) .. ',"amountMinor":' .. amount .. ',"deltaMinor":-' .. amount ..
      ',"balanceMinor":' .. int(available) .. ',"heldMinor":' .. int(held) .. ',' .. string.sub(ARGV[3], 2)
    redis.call('RPUSH', KEYS[2], entry)
  end
  redis.call('HINCRBY', KEYS[4], day .. '|value', amount)
  redis.call('HINCRBY', KEYS[4], day .. '|count', 1)
  redis.call('HSET', KEYS[3], ARGV[1], settled)
  return { 1, settled, entry }
end
redis.call('HSET', KEYS[3], ARGV[1], settled)
if funding == 'float' then
  local held = redis.call('HINCRBY', KEYS[1], 'held', '-' .. amount)
  local available = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  entry = '{"seq":' .. int(seq) .. ',"amountMinor":' .. amount .. ',"deltaMinor":0,"balanceMinor":' ..
    int(available) .. ',"heldMinor":' .. int(held) .. ',' .. string.sub(ARGV[2], 2)
  redis.call('RPUSH', KEYS[2], entry)
end
return { 1, settled, entry }
