-- Count one event in a fixed window. KEYS[1] the window's counter; ARGV[1] window length (ms).
-- Returns the count including this event.
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
