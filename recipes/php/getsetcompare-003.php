<?php
/*
 * getsetcompare-003: document 003, 方案2, steps 1 to 5, as strategy/
 * getsetcompare writes them with its Document003 option (docs/
 * getsetcompare-003.md). The document gives steps, not code; they are
 * written here with the commands it names. Times are Unix milliseconds, read
 * once per attempt. Step 5 counts the time held from that reading.
 */
require __DIR__ . '/protocol.php';

function lock($lockkey, $timeout)
{
    $redis = getRedis();
    $now = millitime();
    // 1. setnx(lockkey, 当前时间+过期超时时间)，如果返回1，则获取锁成功；如果返回0则没有获取到锁，转向2。
    if ($redis->setnx($lockkey, $now + $timeout)) {
        return [$now, $timeout];
    }
    // 2. get(lockkey)获取值oldExpireTime，并将这个value值与当前的系统时间进行比较，如果小于当前系统时间，则认为这个锁已经超时
    $oldExpireTime = $redis->get($lockkey);
    if (!($oldExpireTime < $now)) {
        return false;
    }
    // 3. 计算newExpireTime=当前时间+过期超时时间，然后getset(lockkey, newExpireTime) 会返回当前lockkey的值currentExpireTime。
    $newExpireTime = $now + $timeout;
    $currentExpireTime = $redis->getSet($lockkey, $newExpireTime);
    // 4. 判断currentExpireTime与oldExpireTime 是否相等，如果相等，说明当前getset设置成功，获取到了锁。
    if ($currentExpireTime != $oldExpireTime) {
        return false;
    }
    return [$now, $timeout];
}

function unlock($lockkey, $lock)
{
    $redis = getRedis();
    [$start, $timeout] = $lock;
    // 5. 比较自己的处理时间和对于锁设置的超时时间，如果小于锁设置的超时时间，则直接执行delete释放锁；
    //    如果大于锁设置的超时时间，则不需要再锁进行处理。
    if (millitime() - $start >= $timeout) {
        return 'held for its TTL or longer, by its clock';
    }
    if (0 === $redis->del($lockkey)) {
        return 'del deleted nothing';
    }
    return true;
}

serve('lock', 'unlock');
