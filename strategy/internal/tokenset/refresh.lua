-- Extend a hold that is still held; never shorten it, never revive it.
-- ARGV[1] TTL in milliseconds; ARGV[2..] the hold's members, which share
-- one expiry.
-- Returns 1 when the hold is held (it now lives at least ARGV[1] ms), 0
-- when it had expired or was released (nothing is written then).
local score = redis.call("ZSCORE", KEYS[1], ARGV[2])
if not score then
	return 0
end
local expiry = tonumber(nowms) + tonumber(ARGV[1])
if expiry > tonumber(score) then
	local at = ms(expiry)
	local add = {"XX"}
	for i = 2, #ARGV do
		add[#add + 1] = at
		add[#add + 1] = ARGV[i]
	end
	redis.call("ZADD", KEYS[1], unpack(add))
	extend(KEYS[1], at, false)
end
return 1
