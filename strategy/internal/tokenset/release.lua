-- Release a hold: remove its own members, and only those.
-- ARGV[1] "any" to publish after every release, "empty" to publish only
-- when the set is left empty; ARGV[2] the channel, or "" not to publish;
-- ARGV[3] the message; ARGV[4..] the hold's members.
-- Returns {removed, empty}: how many members were removed, 0 when the
-- hold had expired or was released already (nothing is published then),
-- and 1 when the release left the set empty, else 0.
--
-- The key lives as long as its longest member. Removing members that are
-- not the longest changes nothing of that, and removing the last ones
-- removes the key: the key is fitted again only when this hold's members
-- were the longest and others are left, to the longest of those, read
-- among the n + 1 last members before the removal.
local n = #ARGV - 3
local last = redis.call("ZRANGE", KEYS[1], n == 1 and "-2" or ms(-n - 1), "-1")
local removed = redis.call("ZREM", KEYS[1], unpack(ARGV, 4))
if removed == 0 then
	return {0, 0}
end
-- The set is left empty when the hold's members were all it had: then
-- last, which reads one member more than the hold has, held them only.
local empty = #last == removed
-- mine says whether member is one of this hold's.
local function mine(member)
	for i = 4, #ARGV do
		if ARGV[i] == member then
			return true
		end
	end
	return false
end
if mine(last[#last]) then
	for i = #last - 1, 1, -1 do
		if not mine(last[i]) then
			expireAt(KEYS[1], redis.call("ZSCORE", KEYS[1], last[i]))
			break
		end
	end
end
if ARGV[2] ~= "" and (ARGV[1] == "any" or empty) then
	redis.call("PUBLISH", ARGV[2], ARGV[3])
end
return {removed, empty and 1 or 0}
