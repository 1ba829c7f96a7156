<?php
/*
 * tokengetdel: the step document 004 takes between 方式五 and 方式六, a token
 * of each lock's own checked with get before the del, which its prose
 * describes ("del 之前应该先检查锁的密码是否是当前进程设置的") and its code
 * skips; as strategy/tokengetdel writes it (docs/tokengetdel.md): a token per
 * acquisition, 'px' in milliseconds.
 */
require __DIR__ . '/protocol.php';

function lock($key, $timeout)
{
    $redis = getRedis();
    $token = uuid();
    // 加锁
    if (false === $redis->set($key, $token, ['nx', 'px' => $timeout,])) {
        return false;
    }
    return $token;
}

function unlock($key, $token)
{
    $redis = getRedis();
    // 检查锁的密码是否是当前进程设置的
    if ($redis->get($key) !== $token) {
        return 'the lock holds another token, or none';
    }
    // 执行get和del又会出现临界区
    if (0 === $redis->del($key)) {
        return '任务完成，释放锁失败';
    }
    return true;
}

serve('lock', 'unlock');
