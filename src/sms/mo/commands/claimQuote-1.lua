-- Take the pending quote for buying, once: the first YES claims it, a later one finds it bought.
-- KEYS[1] the sender's quotes key
-- ARGV[1] the code given ('' for a bare YES)  ARGV[2] now (epoch ms)  ARGV[3] key time to live (ms)
-- ARGV[4] how many bought quotes to remember
-- Returns {'claimed', quote} | {'bought', quote} | {'expired', quote} | {'mismatch'} | {'none'}.
local raw = redis.call('GET', KEYS[1])
if not raw then return { 'none' } end
local state = cjson.decode(raw)
local code = ARGV[1]
if type(state.bought) == 'table' then
  for _, quote in ipairs(state.bought) do
    if quote.code == code then return { 'bought', cjson.encode(quote) } end
  end
end
local pending = state.pending
if type(pending) ~= 'table' then
  -- A bare YES after the purchase: the latest bought quote answers it.
  if code == '' and type(state.bought) == 'table' and state.bought[1] then
    return { 'bought', cjson.encode(state.bought[1]) }
  end
  return { code == '' and 'none' or 'mismatch' }
end
if code ~= '' and pending.code ~= code then return { 'mismatch' } end
if pending.expiresAt < tonumber(ARGV[2]) then return { 'expired', cjson.encode(pending) } end
local bought = { pending }
if type(state.bought) == 'table' then
  for _, quote in ipairs(state.bought) do
    if #bought < tonumber(ARGV[4]) then bought[#bought + 1] = quote end
  end
end
state.bought = bought
state.pending = cjson.decode('null')
redis.call('SET', KEYS[1], cjson.encode(state), 'PX', ARGV[3])
return { 'claimed', cjson.encode(pending) }
