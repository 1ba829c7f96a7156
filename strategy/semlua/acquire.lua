-- Take n permits, all or none.
-- KEYS[1] the holders' set; ARGV[1] TTL in ms; ARGV[2] the number of
-- permits; ARGV[3..] the n members of this hold (token .. ":" .. i).
-- Returns 1 when taken; otherwise 0 - the number of permits held by
-- others (nothing is written then).
local held = redis.call("ZCARD", KEYS[1])
local n = #ARGV - 2
if held + n > tonumber(ARGV[2]) then
	return -held
end
local expiry = now + tonumber(ARGV[1])
for i = 3, #ARGV do
	redis.call("ZADD", KEYS[1], expiry, ARGV[i])
end
fit(KEYS[1])
return 1
