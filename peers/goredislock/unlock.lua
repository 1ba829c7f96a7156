-- Delete the lock's key only while it holds the holder's token.
-- KEYS[1] the lock's key; ARGV[1] the holder's token.
-- Returns 1 when it deleted the key, 0 when the key was gone or someone else's.
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0
