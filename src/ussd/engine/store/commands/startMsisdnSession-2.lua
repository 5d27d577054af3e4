--[[
  First hop of a session: read the caller's language preference and previous-session
  pointer, then point it at the new session. Both keys share the caller's hash tag.

  KEYS[1] language preference key (string: language tag)
  KEYS[2] resume pointer key (string: encoded session ref)
  ARGV[1] encoded ref of the new session
  ARGV[2] pointer time to live, seconds

  Returns
    {language or nil, previous pointer or nil}
    (the previous pointer is nil when it already names the new session: a replayed first hop)
]]
local language = redis.call('GET', KEYS[1])
local previous = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
if previous == ARGV[1] then
  previous = false
end
return {language, previous}
