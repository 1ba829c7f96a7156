-- Delete the lock only if it still holds our token, and announce the release.
-- KEYS[1] lock key; ARGV[1] token; ARGV[2], when given, the channel on which
-- to PUBLISH the key once it is deleted.
-- Returns 1 when deleted, 0 otherwise (nothing is published then).
if redis.call("GET", KEYS[1]) == ARGV[1] then
	redis.call("DEL", KEYS[1])
	if ARGV[2] then
		redis.call("PUBLISH", ARGV[2], KEYS[1])
	end
	return 1
end
return 0
