
if tonumber(ARGV[3]) ~= 0 and redis.call('exists', KEYS[3]) == 1 then
	return 0
end
if redis.call('incr', KEYS[2]) ~= 1 then
	return 1
end
if redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2], 'nx') then
	return 1
end
redis.call('decr', KEYS[2])
return 0