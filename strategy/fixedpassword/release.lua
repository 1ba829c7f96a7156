-- Document 004's release (方式六): delete the key if it holds the password.
-- KEYS[1] lock key; ARGV[1] the password, the same for every process.
-- Returns 1 when deleted, -1 otherwise (the lock expired, or someone else's
-- value is there).
if ARGV[1] == redis.call("GET", KEYS[1]) then
	return redis.call("DEL", KEYS[1])
else
	return -1
end
