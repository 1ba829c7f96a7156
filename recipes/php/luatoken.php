<?php
/*
 * luatoken: document 004, 方式六, as its prose asks (each lock with a token
 * of its own) and as strategy/luatoken writes it (docs/luatoken.md): SET NX
 * PX with a token per acquisition, a Lua compare-and-delete to release, and
 * luatoken's refresh, a Lua compare-and-pexpire that never shortens the
 * lock (the document has no refresh; the Go column has one).
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    $token = uuid();
    // 加锁
    if (false === $redis->set($key, $token, ['nx', 'px' => $timeout,])) {
        return false;
    }
    return $token;
}

function unlock($key, $token)
{
    $redis = getRedis();
    $delScript = <<<'LUA'
if ARGV[1] == redis.call("get", KEYS[1])
then
    return redis.call("del", KEYS[1])
else
    return 0
end
LUA;
    $res = $redis->eval($delScript, [$key, $token], 1);
    if (1 !== $res) {
        return '锁超时，被其他进程获得，无需释放';
    }
    return true;
}

function refresh($key, $token, $timeout)
{
    $redis = getRedis();
    $extendScript = <<<'LUA'
if redis.call("get", KEYS[1]) ~= ARGV[1] then
    return 0
end
local ttl = tonumber(ARGV[2])
if redis.call("pttl", KEYS[1]) < ttl then
    redis.call("pexpire", KEYS[1], ttl)
end
return 1
LUA;
    if (1 !== $redis->eval($extendScript, [$key, $token, $timeout], 1)) {
        return 'the lock holds another token, or none';
    }
    return true;
}

serve('lock', 'unlock', 'refresh');
