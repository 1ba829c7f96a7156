<?php
/*
 * delsetnxcheck: document 004, 方式三, as strategy/delsetnxcheck writes it
 * (docs/delsetnxcheck.md): times in Unix milliseconds where the document
 * counts whole seconds with time(), read once per attempt; del where it
 * writes delete, phpredis's old name for it.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    $now = millitime();
    // 加锁
    if (false === $redis->setnx($key, $now + $timeout)) {
        $t = $redis->get($key);
        if ($t > $now) {
            // var_dump('锁被其他进程拿到，且未超时');
            return false;
        }
        // 释放超时锁
        if (0 === $redis->del($key)) {// 临界区
            // var_dump('释放超时锁失败');
            return false;
        }
        // 再次加锁
        if (false === $redis->setnx($key, $now + $timeout)) {
            // var_dump('再次加锁失败');
            return false;
        }
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
