<?php
/*
 * getsetexpire: document 000's code under 【代码实现】, one pass of its loop,
 * as strategy/getsetexpire writes it (docs/getsetexpire.md): times in Unix
 * milliseconds where the document counts whole seconds with time(), read
 * once per attempt; pexpire and pttl where it sends expire and ttl. A del
 * that deletes nothing is reported as not held.
 */
require __DIR__ . '/protocol.php';

function lock($lockKey, $lockExpire)
{
    $redis = getRedis();
    $now = millitime();
    //设置锁值为当前时间戳 + 有效期
    $lockValue = $now + $lockExpire;
    $lock = $redis->setnx($lockKey, $lockValue);
    /**
     * 满足两个条件中的一个即可进行操作
     * 1、上面一步创建锁成功;
     * 2、   1）判断锁的值（时间戳）是否小于当前时间    $redis->get()
     *      2）同时给锁设置新值成功    $redis->getset()
     */
    if (!empty($lock) || ($redis->get($lockKey) < $now && $redis->getSet($lockKey, $lockValue) < $now)) {
        //给锁设置生存时间
        $redis->pexpire($lockKey, $lockExpire);
        return true;
    }
    return false;
}

function unlock($lockKey, $lock)
{
    $redis = getRedis();
    //检测锁是否过期，过期锁没必要删除
    if ($redis->pttl($lockKey)) {
        if (0 === $redis->del($lockKey)) {
            return 'del deleted nothing';
        }
    }
    return true;
}

serve('lock', 'unlock');
