package hashrwlock

import "github.com/gomodule/redigo/redis"

// The scripts of Redisson's RReadWriteLock, one per step, as its current
// sources run them (the publish of the unlock message and the unlock
// latch Redisson keeps against retried commands are left out: neither
// changes the lock's state). A nil reply to an acquire means acquired; a
// number is K's PTTL, the lock being taken. A nil reply to an unlock means
// the holder did not hold it.

// readAcquire: KEYS[1] K, KEYS[2] the holder's timeout prefix
// ({K}:<holder>:rwlock_timeout); ARGV[1] the lease in milliseconds,
// ARGV[2] the holder, ARGV[3] the holder's write field (<holder>:write).
// A reader gets in when nobody holds K, when K is held for reading, or
// when its own holder holds the write lock (a downgrade); each hold adds
// a timeout key, and K lives as long as the longest of them.
var readAcquire = redis.NewScript(2, `
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
	redis.call('hset', KEYS[1], 'mode', 'read')
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('set', KEYS[2] .. ':1', 1, 'px', ARGV[1])
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
	local n = redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('set', KEYS[2] .. ':' .. n, 1, 'px', ARGV[1])
	local left = redis.call('pttl', KEYS[1])
	redis.call('pexpire', KEYS[1], math.max(left, tonumber(ARGV[1])))
	return nil
end
return redis.call('pttl', KEYS[1])`)

// writeAcquire: KEYS[1] K; ARGV[1] the lease, ARGV[2] the holder's write
// field. A writer gets in when nobody holds K, or again when it holds the
// write lock already, which adds its lease to K's time left.
var writeAcquire = redis.NewScript(1, `
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
	redis.call('hset', KEYS[1], 'mode', 'write')
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], redis.call('pttl', KEYS[1]) + tonumber(ARGV[1]))
	return nil
end
return redis.call('pttl', KEYS[1])`)

// readUnlock: KEYS[1] K, KEYS[2] the holder's timeout prefix, KEYS[3] the
// prefix of every holder's timeout keys ({K}); ARGV[1] the holder. It
// drops the holder's last hold and its timeout key; then, while other
// fields remain, K's expiry is set to the longest time left among the
// remaining timeout keys; with none left, K is deleted, unless it is
// held for writing.
var readUnlock = redis.NewScript(3, `
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
	return nil
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
	return nil
end
local n = redis.call('hincrby', KEYS[1], ARGV[1], -1)
if n == 0 then
	redis.call('hdel', KEYS[1], ARGV[1])
end
redis.call('del', KEYS[2] .. ':' .. (n + 1))
if redis.call('hlen', KEYS[1]) > 1 then
	local longest = -3
	for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
		local holds = tonumber(redis.call('hget', KEYS[1], field))
		if type(holds) == 'number' then
			for i = holds, 1, -1 do
				local left = redis.call('pttl', KEYS[3] .. ':' .. field .. ':rwlock_timeout:' .. i)
				longest = math.max(left, longest)
			end
		end
	end
	if longest > 0 then
		redis.call('pexpire', KEYS[1], longest)
		return 0
	end
	if mode == 'write' then
		return 0
	end
end
redis.call('del', KEYS[1])
return 1`)

// writeUnlock: KEYS[1] K; ARGV[1] the watchdog lease, ARGV[2] the
// holder's write field. A reentered write lock is released once and K
// lives the watchdog lease; the last release deletes K, or hands it to the
// holder's own read holds.
var writeUnlock = redis.NewScript(1, `
local mode = redis.call('hget', KEYS[1], 'mode')
if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
	return nil
end
if redis.call('hincrby', KEYS[1], ARGV[2], -1) > 0 then
	redis.call('pexpire', KEYS[1], ARGV[1])
	return 0
end
redis.call('hdel', KEYS[1], ARGV[2])
if redis.call('hlen', KEYS[1]) == 1 then
	redis.call('del', KEYS[1])
else
	redis.call('hset', KEYS[1], 'mode', 'read')
end
return 1`)

// readRenew is the read lock's watchdog for one holder: KEYS[1] K,
// KEYS[2] {K}; ARGV[1] the lease, ARGV[2] the holder. While the holder
// has a field in K, each of its timeout keys and K itself are set to
// live the lease.
var readRenew = redis.NewScript(2, `
local holds = redis.call('hget', KEYS[1], ARGV[2])
if holds == false then
	return 0
end
for i = tonumber(holds), 1, -1 do
	redis.call('pexpire', KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:' .. i, ARGV[1])
end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1`)

// writeRenew is the write lock's watchdog: KEYS[1] K; ARGV[1] the lease,
// ARGV[2] the holder's write field.
var writeRenew = redis.NewScript(1, `
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
	return 0
end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1`)
