<?php
/*
 * getset: document 001's getPidLock and releasePidLock (the algorithm
 * document 000 gives in prose), one attempt each, as strategy/getset writes
 * them (docs/getset.md). Times are Unix milliseconds, as in the document; the
 * lock timeout comes in milliseconds rather than seconds times 1000, and the
 * acquire buffer is its 0.001 s written as 1 ms, so that the value stays an
 * integer. The release reports a lock found gone or expired (its stored time
 * before now) as not held, where the document returns true every time.
 */
require __DIR__ . '/protocol.php';

/**
 * @param string $pid           业务唯一id (the lock key)
 * @param int    $lock_timeout  锁时间，单位：毫秒
 * @param int    $buffer_time   操作及连接缓冲时间，单位：毫秒
 */
function getPidLock($pid, $lock_timeout, $buffer_time = 1)
{
    $redis = getRedis();
    $now = millitime();//自定获取毫秒函数
    $lock_expire_time = $now + $lock_timeout + $buffer_time;
    $lock = $redis->setnx($pid, $lock_expire_time);
    if ($lock == 1 //第一个判断就成功拿到锁
     || (($now > $redis->get($pid)) && ($now > $redis->getSet($pid, $lock_expire_time))) //第二个判断成功拿到锁
     ) {
        $lock = 1;
    }
    return $lock;
}

/**
 * @param string $pid          业务唯一id
 * @param float  $buffer_time  操作及连接缓冲时间 (0.003, compared with a difference of milliseconds)
 */
function releasePidLock($pid, $buffer_time = 0.003)
{
    $redis = getRedis();
    $lock_expire_time = $redis->get($pid);
    $now = millitime();//自定获取毫秒函数

    if ($lock_expire_time //处理异常情况
     && (($lock_expire_time - $now) > $buffer_time) //在考虑buffer_time的情况下，锁依旧还没有过期
     ) {
        $redis->del($pid);//主动释放锁
        return true;
    }//其他情况，可以通过锁竞争的第二个判断被动释放锁
    if ($lock_expire_time < $now) {
        return 'the lock is gone or its time has passed';
    }
    return true;
}

serve('getPidLock', function ($pid, $lock) {
    return releasePidLock($pid);
});
