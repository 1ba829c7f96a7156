-- The head of every script of a token-set lock: KEYS[1] is a sorted set of
-- holder members, each scored by its expiry in milliseconds of the
-- SERVER's clock. A member is held while its score is above now; the
-- expired ones are removed before anything else is read, so no script ever
-- counts, keeps or refreshes a hold that has run out.
--
-- A number that a script passes to redis.call costs the server a
-- floating-point conversion to text, which costs more than most commands
-- do: the times go to Redis as the text of their digits, and the scripts
-- pass counts and indexes as strings.
if redis.replicate_commands then
	redis.replicate_commands() -- before Redis 5, TIME before a write needs it
end
local t = redis.call("TIME")
-- now in milliseconds, as digits: the seconds, then the first three of the
-- six digits of the microseconds. A script that counts with it reads it
-- with tonumber(nowms), which costs the server a strtod.
local nowms = t[1] .. string.sub("00000" .. t[2], -6, -4)

-- ms returns the digits of a whole number of milliseconds.
local function ms(n)
	return string.format("%d", n)
end

-- prune removes the members of key that have expired.
local function prune(key)
	redis.call("ZREMRANGEBYSCORE", key, "-inf", nowms)
end

-- expireAt makes key expire at score, a score as Redis replied it: its
-- digits as they are, unless Redis wrote it as a float.
local function expireAt(key, score)
	if string.find(score, "[^%d]") then
		score = ms(tonumber(score))
	end
	redis.call("PEXPIREAT", key, score)
end

-- fit makes key live as long as its longest member, so that the holds of
-- holders that crashed leave nothing behind. An empty set is gone already.
local function fit(key)
	local last = redis.call("ZRANGE", key, "-1", "-1", "WITHSCORES")
	if last[2] then
		expireAt(key, last[2])
	end
end

-- PEXPIREAT takes GT from Redis 7, which tells its version to scripts.
local gt = redis.REDIS_VERSION_NUM ~= nil

-- extend makes key, to which members expiring at the milliseconds at were
-- just added, live as long as its longest member: fresh says it held none
-- before (it had no expiry), and otherwise its expiry already was its
-- longest member's.
local function extend(key, at, fresh)
	if fresh then
		redis.call("PEXPIREAT", key, at)
	elseif gt then
		redis.call("PEXPIREAT", key, at, "GT")
	else
		fit(key)
	end
end

prune(KEYS[1])
