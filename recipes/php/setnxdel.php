<?php
/*
 * setnxdel: document 004, 方式一 and 方式二 (the 简易锁 of document 003).
 * SETNX to lock, DEL to unlock, no expiry. As strategy/setnxdel writes it
 * (see its table on docs/setnxdel.md): the value is 1, as document 003
 * writes its locks (004's time() is never read); 方式二's expire($key, 0)
 * after a failed del is not sent; $timeout is taken and ignored.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    // 加锁
    if (false === $redis->setnx($key, 1)) {
        // var_dump('锁被其他进程拿到，且未超时');
        return false;
    }
    // 获得锁
    return true;
}

function unlock($key, $lock)
{
    $redis = getRedis();
    // 释放锁
    if (0 === $redis->del($key)) {
        return '任务完成，释放锁失败';
    }
    return true;
}

serve('lock', 'unlock');
