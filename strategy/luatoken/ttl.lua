-- Read the lock's remaining time only if it still holds our token.
-- KEYS[1] lock key; ARGV[1] token.
-- Returns PTTL (milliseconds, or -1 for a key without expiry), or -3 when the
-- key is gone or holds another token.
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PTTL", KEYS[1])
end
return -3
