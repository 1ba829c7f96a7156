<?php
/*
 * delsetnx: the takeover document 000 walks through in prose before it
 * turns to GETSET (P1, P2, P3: GET the time, DEL, SETNX), as strategy/
 * delsetnx writes it (docs/delsetnx.md): times in Unix milliseconds; a key
 * the GET finds gone makes the attempt fail (the next one's SETNX takes it);
 * and the release document 000 asks for ("在进程释放锁...前，需要先判断锁是否
 * 已超时"), written as document 001's releasePidLock, as in getset.php.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    $now = millitime();
    if ($redis->setnx($key, $now + $timeout)) {
        return true;
    }
    // 读取键 lock.foo 的值，检测锁是否已超时
    $t = $redis->get($key);
    if ($t === false || !($now > $t)) {
        return false;
    }
    // 执行 DEL lock.foo 命令, 执行 SETNX lock.foo 命令，并返回1，即获得锁
    $redis->del($key);
    return $redis->setnx($key, $now + $timeout);
}

function releasePidLock($pid, $buffer_time = 0.003)
{
    $redis = getRedis();
    $lock_expire_time = $redis->get($pid);
    $now = millitime();

    if ($lock_expire_time && (($lock_expire_time - $now) > $buffer_time)) {
        $redis->del($pid);
        return true;
    }
    if ($lock_expire_time < $now) {
        return 'the lock is gone or its time has passed';
    }
    return true;
}

serve('lock', function ($key, $lock) {
    return releasePidLock($key);
});
