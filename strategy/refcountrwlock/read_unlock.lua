
if redis.call('decr', KEYS[2]) ~= 0 then
	return 1
end
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('del', KEYS[1])
	return 1
end
return 0