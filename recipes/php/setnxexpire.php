<?php
/*
 * setnxexpire: document 003, 方案1 (setnx(lockkey, 1), then expire(), then
 * delete), with document 002's repair of a lock left without expiry, as
 * strategy/setnxexpire writes it (docs/setnxexpire.md): the expiry in
 * milliseconds (pexpire), and the repair with its bug: ttl() answers -2 for
 * a key that does not exist; -1, no expiry, was meant.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    // 1. setnx(lockkey, 1) 如果返回0，则说明占位失败；如果返回1，则说明占位成功
    if ($redis->setnx($key, 1)) {
        // 2. expire()命令对lockkey设置超时时间，为的是避免死锁问题。
        $redis->pexpire($key, $timeout);
        return true;
    } else if ($redis->ttl($key) === -2) {
        $redis->pexpire($key, $timeout);
    }
    return false;
}

function unlock($key, $lock)
{
    $redis = getRedis();
    // 3. 执行完业务代码后，可以通过delete命令删除key。
    if (0 === $redis->del($key)) {
        return 'del deleted nothing';
    }
    return true;
}

serve('lock', 'unlock');
