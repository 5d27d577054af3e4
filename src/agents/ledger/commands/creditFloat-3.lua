--[[
  Credit (top-up) or adjust an agent's float, once per reference and per idempotency key.

  KEYS[1] float account (hash: balance, held, seq)
  KEYS[2] entries (list of JSON, oldest first)
  KEYS[3] references (hash: ref:<reference> and key:<idempotency key> -> '<seq>|<signature>')

  ARGV[1] amount, signed minor units (a credit is positive)
  ARGV[2] reference
  ARGV[3] idempotency key ('' for none)
  ARGV[4] the entry's other fields as a JSON object ({"kind":...,"at":...,"reference":...})
  ARGV[5] signature: '<kind>|<amount>|<reference>' (what a retry must repeat)

  All keys share the agent's hash tag {<msisdn>}: one Cluster slot.

  Returns:
    { 1, entry JSON }      written
    { 2, seq }             the key or reference was applied with this signature: nothing written
    { -6, field }          the key or reference was used with another signature ('idempotencyKey'|'reference')
    { -2, available }      a negative adjustment larger than the balance: nothing written
]]
local function int(n)
  return string.format('%d', n)
end
if ARGV[3] ~= '' then
  local keyed = redis.call('HGET', KEYS[3], 'key:' .. ARGV[3])
  if keyed then
    local seq, signature = string.match(keyed, '^(%d+)|(.*)$')
    if signature == ARGV[5] then
      return { 2, tonumber(seq) }
    end
    return { -6, 'idempotencyKey' }
  end
end
local referenced = redis.call('HGET', KEYS[3], 'ref:' .. ARGV[2])
if referenced then
  local seq, signature = string.match(referenced, '^(%d+)|(.*)$')
  if signature ~= ARGV[5] then
    return { -6, 'reference' }
  end
  if ARGV[3] ~= '' then
    redis.call('HSET', KEYS[3], 'key:' .. ARGV[3], referenced)
  end
  return { 2, tonumber(seq) }
end
local amount = tonumber(ARGV[1])
local available = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
if available + amount < 0 then
  return { -2, available }
end
available = redis.call('HINCRBY', KEYS[1], 'balance', ARGV[1])
local held = tonumber(redis.call('HGET', KEYS[1], 'held') or '0')
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local entry = '{"seq":' .. int(seq) .. ',"amountMinor":' .. ARGV[1] .. ',"deltaMinor":' .. ARGV[1] ..
  ',"balanceMinor":' .. int(available) .. ',"heldMinor":' .. int(held) .. ',' .. string.sub(ARGV[4], 2)
redis.call('RPUSH', KEYS[2], entry)
local value = int(seq) .. '|' .. ARGV[5]
redis.call('HSET', KEYS[3], 'ref:' .. ARGV[2], value)
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3], 'key:' .. ARGV[3], value)
end
return { 1, entry }
