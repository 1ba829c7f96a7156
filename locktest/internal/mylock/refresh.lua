-- Make the lock's key live ARGV[2] milliseconds from now, only while it holds
-- this holder's token.
-- KEYS[1] the lock's key; ARGV[1] the holder's token; ARGV[2] the new TTL in ms.
-- Returns 1 when it extended the key, 0 when the lock was gone or someone else's.
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0
