<?php
/*
 * watchdel: document 002's lock as its text means it, as strategy/watchdel
 * writes it (docs/watchdel.md): lock() as in multiget.php; releaseLock()
 * watches the key, compares its value with the uuid before the transaction
 * (inside it, get answers nothing useful), and deletes in multi/exec, which
 * Redis aborts when the key changed after the watch.
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
    $t = $redis->get($key);
    if ($t === $uuid) {
        $redis->multi();
        $redis->del($key);
        $deleted = $redis->exec();
        if ($deleted === false) {
            return 'exec aborted: the key changed after the watch';
        }
        if ($deleted !== [1]) {
            return 'the key expired after the watch';
        }
        return true;
    }
    $redis->unwatch();
    return 'the lock holds another uuid, or none';
}

serve('lock', 'releaseLock');
