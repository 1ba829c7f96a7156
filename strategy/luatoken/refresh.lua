-- Extend the lock only if it still holds our token; never shorten it.
-- KEYS[1] lock key; ARGV[1] token; ARGV[2] TTL in milliseconds.
-- Returns 1 when the key holds the token (it now lives at least ARGV[2] ms),
-- 0 otherwise.
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
	return 0
end
local ttl = tonumber(ARGV[2])
if redis.call("PTTL", KEYS[1]) < ttl then
	redis.call("PEXPIRE", KEYS[1], ttl)
end
return 1
