-- The head of every script of a token-set lock: KEYS[1] is a sorted set of
-- holder members, each scored by its expiry in milliseconds of the
-- SERVER's clock. A member is held while its score is above now; the
-- expired ones are removed before anything else is read, so no script ever
-- counts, keeps or refreshes a hold that has run out.
if redis.replicate_commands then
	redis.replicate_commands() -- before Redis 5, TIME before a write needs it
end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- prune removes the members of key that have expired.
local function prune(key)
	redis.call("ZREMRANGEBYSCORE", key, "-inf", now)
end

-- fit makes key live as long as its longest member, so that the holds of
-- holders that crashed leave nothing behind. An empty set is gone already.
local function fit(key)
	local last = redis.call("ZRANGE", key, -1, -1, "WITHSCORES")
	if last[2] then
		redis.call("PEXPIRE", key, tonumber(last[2]) - now)
	end
end

prune(KEYS[1])
