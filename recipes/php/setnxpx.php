<?php
/*
 * setnxpx: document 004, 方式五 (and the SET with NX and a timeout that
 * document 003 ends on), as strategy/setnxpx writes it (docs/setnxpx.md):
 * 'px' in milliseconds where the document writes 'ex' in seconds.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    // 加锁
    if (false === $redis->set($key, 1, ['nx', 'px' => $timeout,])) {
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
