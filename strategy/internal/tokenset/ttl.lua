-- Read the time a hold has left. ARGV[1] one of its members.
-- Returns milliseconds, or -3 when the hold had expired or was released.
local score = redis.call("ZSCORE", KEYS[1], ARGV[1])
if not score then
	return -3
end
return tonumber(score) - tonumber(nowms)
