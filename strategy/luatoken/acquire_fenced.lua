-- Lock, and draw a fencing token only when the lock was taken.
-- KEYS[1] lock key; KEYS[2] fencing counter (same hash slot as KEYS[1]);
-- ARGV[1] token; ARGV[2] TTL in milliseconds.
-- Returns the new fencing token (1, 2, ...), or 0 when the lock is held.
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
	return redis.call("INCR", KEYS[2])
end
return 0
