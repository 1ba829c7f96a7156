<?php
/*
 * getsetcompare: document 004, 改进方式四, as strategy/getsetcompare writes
 * it (docs/getsetcompare.md): times in Unix milliseconds where the document
 * counts whole seconds with time(), read once per attempt; var_dump and
 * return become a false return.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    $now = millitime();
    // 加锁
    if (false === $redis->setnx($key, $now + $timeout)) {
        $t1 = $redis->get($key);
        if ($t1 > $now) {
            // var_dump('锁被其他进程拿到，且未超时');
            return false;
        }
        // 这个命令其实是两步操作：1，返回锁旧的超时时间；2，设置锁新的超时时间
        $t2 = $redis->getSet($key, $now + $timeout);// 临界区
        if ($t2 != $t1) {
            // var_dump('锁虽然超时，但是刚被别人获取了');
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
