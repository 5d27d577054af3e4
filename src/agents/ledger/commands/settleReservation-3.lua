--[[
  A sale succeeded: its reservation is spent (the float's held amount goes down, the
  available balance stays). Once per purchase key: a second settle changes nothing.

  KEYS[1] float account (hash: balance, held, seq)
  KEYS[2] entries (list of JSON, oldest first)
  KEYS[3] reservations (hash: purchase key -> '<state>|<amount>|<day>|<funding>')

  ARGV[1] purchase key
  ARGV[2] the entry's other fields as a JSON object ({"kind":"settle","at":...,"purchaseKey":...})

  All keys share the agent's hash tag {<msisdn>}: one Cluster slot.

  Returns:
    { 1, reservation, entry JSON or '' }   settled
    { 2, reservation }                     settled or released before: nothing written
    { -1 }                                 no reservation under this key
]]
local function int(n)
  return string.format('%d', n)
end
local hold = redis.call('HGET', KEYS[3], ARGV[1])
if not hold then
  return { -1 }
end
local state, amount, day, funding = string.match(hold, '^(%a+)|(%d+)|([^|]*)|(%a+)$')
if state ~= 'held' then
  return { 2, hold }
end
local settled = 'settled|' .. amount .. '|' .. day .. '|' .. funding
redis.call('HSET', KEYS[3], ARGV[1], settled)
local entry = ''
if funding == 'float' then
  local held = redis.call('HINCRBY', KEYS[1], 'held', '-' .. amount)
  local available = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  entry = '{"seq":' .. int(seq) .. ',"amountMinor":' .. amount .. ',"deltaMinor":0,"balanceMinor":' ..
    int(available) .. ',"heldMinor":' .. int(held) .. ',' .. string.sub(ARGV[2], 2)
  redis.call('RPUSH', KEYS[2], entry)
end
return { 1, settled, entry }
