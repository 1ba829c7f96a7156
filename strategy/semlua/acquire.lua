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
local expiry = ms(tonumber(nowms) + tonumber(ARGV[1]))
if n == 1 then
	redis.call("ZADD", KEYS[1], expiry, ARGV[3])
else
	local add = {}
	for i = 3, #ARGV do
		add[#add + 1] = expiry
		add[#add + 1] = ARGV[i]
	end
	redis.call("ZADD", KEYS[1], unpack(add))
end
extend(KEYS[1], expiry, held == 0)
return 1
