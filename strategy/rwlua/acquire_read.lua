-- Take the lock as a reader.
-- KEYS[1] the holders' set; KEYS[2] the waiting writers' set (same slot);
-- ARGV[1] the reader's member ("r:" .. token); ARGV[2] TTL in ms.
-- Returns 1 when taken; 0 when a writer holds it; -1 when a writer waits
-- (its intent has not expired): readers then wait behind it.
-- The holders are either readers only or one writer alone, so the first
-- member tells which.
prune(KEYS[2])
if redis.call("EXISTS", KEYS[2]) == 1 then
	return -1
end
local first = redis.call("ZRANGE", KEYS[1], "0", "0")[1]
if first and string.sub(first, 1, 2) == "w:" then
	return 0
end
local expiry = ms(tonumber(nowms) + tonumber(ARGV[2]))
redis.call("ZADD", KEYS[1], expiry, ARGV[1])
extend(KEYS[1], expiry, not first)
return 1
