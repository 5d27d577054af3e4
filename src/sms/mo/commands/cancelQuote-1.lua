-- Drop the pending quote (NO). KEYS[1] the sender's quotes key; ARGV[1] the code given ('' = any).
-- Returns 1 when a pending quote was dropped, 0 otherwise.
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local state = cjson.decode(raw)
local pending = state.pending
if type(pending) ~= 'table' then return 0 end
if ARGV[1] ~= '' and pending.code ~= ARGV[1] then return 0 end
state.pending = cjson.decode('null')
redis.call('SET', KEYS[1], cjson.encode(state), 'KEEPTTL')
return 1
