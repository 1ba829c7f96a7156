<?php
/*
 * fixedpassword: document 004, 方式六, as its code writes it and
 * strategy/fixedpassword copies it (docs/fixedpassword.md): one password,
 * 'abc123', for every process; 'px' in milliseconds where the document
 * writes 'ex'. The script is the document's, sent with eval on every release.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    $password = 'abc123';
    // 加锁
    if (false === $redis->set($key, $password, ['nx', 'px' => $timeout,])) {
        // var_dump('锁被其他进程拿到，且未超时');
        return false;
    }
    // 获得锁
    return $password;
}

function unlock($key, $password)
{
    $redis = getRedis();
    // 释放锁
    $delScript = <<<'LUA'
if ARGV[1] == redis.call("get", KEYS[1])
then
    return redis.call("del", KEYS[1])
else
    return -1;
end
LUA;
    // 脚本错误返回字符串
    $res = $redis->eval($delScript, [$key, $password], 1);
    if (false === $res) {
        // var_dump('lua 脚本有问题'); StrictRedis (protocol.php) has thrown before this
        return false;
    } elseif (-1 === $res) {
        return '任务完成，释放锁失败，锁超时，被其他进程获得，无需释放';
    } elseif (1 !== $res) {
        return '释放锁失败';
    }
    return true;
}

serve('lock', 'unlock');
