
redis.call('set', KEYS[3], 1, 'px', ARGV[2])
if redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2], 'nx') then
	redis.call('del', KEYS[2], KEYS[3])
	return 1
end
return 0