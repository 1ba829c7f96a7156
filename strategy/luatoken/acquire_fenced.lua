-- Lock, and draw a fencing token only when the lock was taken.
-- KEYS[1] lock key; KEYS[2] fencing counter (same hash slot as KEYS[1]);
-- ARGV[1] token; ARGV[2] TTL in milliseconds.
-- Returns the new fencing token (1, 2, ...), or 0 when the lock is held.
-- When the counter cannot be incremented (it holds something else), the
-- lock is given back and the error returned: no lock without a token.
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
	local n = redis.pcall("INCR", KEYS[2])
	if type(n) == "table" and n.err then
		redis.call("DEL", KEYS[1])
	end
	return n
end
return 0
