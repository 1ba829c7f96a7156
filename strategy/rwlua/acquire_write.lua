-- Take the lock as a writer, or register this client's wish to.
-- KEYS[1] the holders' set; KEYS[2] the waiting writers' set (same slot),
-- each scored by the expiry of its intent; ARGV[1] the writer's member
-- ("w:" .. token); ARGV[2] TTL in ms; ARGV[3] this client's writer id;
-- ARGV[4] intent TTL in ms, 0 for none (readers first).
-- Returns 1 when taken; 0 when a writer holds it, -1 when readers do
-- (the intent, if any, is then registered or renewed).
prune(KEYS[2])
local first = redis.call("ZRANGE", KEYS[1], "0", "0")[1]
if not first then
	local expiry = ms(tonumber(nowms) + tonumber(ARGV[2]))
	redis.call("ZADD", KEYS[1], expiry, ARGV[1])
	redis.call("PEXPIREAT", KEYS[1], expiry)
	if redis.call("ZREM", KEYS[2], ARGV[3]) == 1 then
		fit(KEYS[2])
	end
	return 1
end
local intent = tonumber(ARGV[4])
if intent > 0 then
	redis.call("ZADD", KEYS[2], ms(tonumber(nowms) + intent), ARGV[3])
	fit(KEYS[2])
end
if string.sub(first, 1, 2) == "w:" then
	return 0
end
return -1
