<?php
/*
 * multiget: document 002 as published (加锁实现, 锁超时的实现, 解锁), one
 * attempt of its lock() and its releaseLock(), as strategy/multiget writes
 * them (docs/multiget.md): pexpire in milliseconds; the misspelt mutli()
 * written multi(), without which PHP stops at "Call to undefined method";
 * and releaseLock answering true where it returns false, since it finds out
 * nothing about the lock. Inside the transaction, phpredis answers get()
 * with the client itself, never the value: the branch that deletes is never
 * taken, and the lock goes only when its TTL runs out.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout = 50000)
{
    $redis = getRedis();

    //uuid的生成自己实现
    $uuid = uuid();

    if ($redis->setNX($key, $uuid)) {
        $redis->pExpire($key, $timeout);
        return $uuid;
    } else if ($redis->ttl($key) === -2)
        $redis->pExpire($key, $timeout);

    return false;
}

function releaseLock($key, $uuid)
{
    //监视key
    $redis = getRedis();
    $redis->watch($key);

    //判断uuid与key的值是否一致
    $redis->multi();
    $t = $redis->get($key);
    $redis->exec();
    if ($t === $uuid) {
        $redis->del($key);
        $redis->exec();
        return true;
    }
    $redis->unwatch();
    return true; // the document returns false; see above
}

serve('lock', 'releaseLock');
