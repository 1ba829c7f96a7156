-- Release a hold: remove its own members, and only those.
-- ARGV[1] "any" to publish after every release, "empty" to publish only
-- when the set is left empty; ARGV[2] the channel, or "" not to publish;
-- ARGV[3] the message; ARGV[4..] the hold's members.
-- Returns how many members were removed: 0 when the hold had expired or
-- was released already (nothing is published then).
local removed = redis.call("ZREM", KEYS[1], unpack(ARGV, 4))
if removed == 0 then
	return 0
end
fit(KEYS[1])
if ARGV[2] ~= "" and (ARGV[1] == "any" or redis.call("EXISTS", KEYS[1]) == 0) then
	redis.call("PUBLISH", ARGV[2], ARGV[3])
end
return removed
