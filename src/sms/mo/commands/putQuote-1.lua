-- Make a quote the sender's pending one, replacing any other, keeping the recently bought list.
-- KEYS[1] the sender's quotes key
-- ARGV[1] the quote (JSON)  ARGV[2] time to live of the key (ms)
-- Returns 1.
local raw = redis.call('GET', KEYS[1])
local state = raw and cjson.decode(raw) or {}
state.pending = cjson.decode(ARGV[1])
redis.call('SET', KEYS[1], cjson.encode(state), 'PX', ARGV[2])
return 1
