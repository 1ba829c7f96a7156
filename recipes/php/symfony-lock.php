<?php
/*
 * symfony-lock: Symfony's Lock component (Debian's php-symfony-lock, 5.4)
 * on a RedisStore over phpredis, used as its documentation shows:
 *
 *   $factory = new LockFactory(new RedisStore($redis));
 *   $lock = $factory->createLock($resource, $ttl);  // seconds, a float
 *   $lock->acquire();    // EVAL: ZADD token and PEXPIREAT, the store's
 *                        // initial TTL (300 s), then refresh() to $ttl
 *   $lock->refresh($ttl);// EVAL: ZADD and PEXPIREAT while the token is there
 *   $lock->release();    // EVAL: ZREM the token; then exists() checks
 *
 * The lock's key holds a sorted set of tokens scored by their expiry, taken
 * from the server's TIME when scripts may read it; the first save of each
 * process probes that with a script that writes symfony_check_support_time.
 * One attempt per acquire request (acquire(false)): the suite does the
 * waiting. The suite's TTL, in milliseconds, is the lock's ttl in seconds.
 *
 * The component reads the process's clock, microtime(true), in every call
 * below: the Key's expiry, and ARGV[1] of every script but the one that
 * deletes the token, the time the script falls back on where it may not
 * read TIME. Each call is preceded by a clock notice (millitime(),
 * protocol.php), so that the suite knows the lock reads a clock, records
 * it, and skews it (clock-skew).
 *
 * Run as symfony-lock.php shared, it is the component's read-write lock
 * (SharedLockInterface, the same RedisStore): acquire is the writer's,
 * $lock->acquire(), and acquire-shared the reader's, $lock->acquireRead():
 *
 *   $lock->acquireRead(); // EVAL: drop the expired tokens; unless the
 *                         // reserved member __write__ is there, ZADD the
 *                         // token, ZREM __write__, PEXPIREAT the latest
 *                         // expiry; then refresh() to $ttl, as acquire()
 *
 * The writer's save adds its token and __write__ only to an empty set
 * (once the expired tokens are dropped); release() removes the token and
 * __write__. One attempt each (acquireRead(false)).
 */
require __DIR__ . '/protocol.php';
requireLibrary('Symfony/Component/Lock/autoload.php', 'php-symfony-lock');

use Symfony\Component\Lock\Exception\LockAcquiringException;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\RedisStore;

// Run as symfony-lock.php store-ttl, each TTL has a store of its own whose
// initial TTL is the lock's: new RedisStore($redis, $ttl), as an
// application whose locks all live $ttl seconds can write it.
$storeTtl = in_array('store-ttl', array_slice($argv, 1), true);
// Run as symfony-lock.php shared, readers take it too (acquireRead).
$shared = in_array('shared', array_slice($argv, 1), true);

function factory(float $ttl): LockFactory
{
    global $storeTtl;
    static $redis = null, $factories = [];
    if ($redis === null) {
        $redis = new Redis();
        connectProxy($redis);
    }
    $which = $storeTtl ? (string) $ttl : 'default';
    if (!isset($factories[$which])) {
        $factories[$which] = new LockFactory($storeTtl ? new RedisStore($redis, $ttl) : new RedisStore($redis));
    }
    return $factories[$which];
}

function lock($key, $ttl_ms)
{
    $lock = factory($ttl_ms / 1000)->createLock($key, $ttl_ms / 1000);
    millitime();
    return $lock->acquire() ? $lock : false;
}

function readLock($key, $ttl_ms)
{
    $lock = factory($ttl_ms / 1000)->createLock($key, $ttl_ms / 1000);
    millitime();
    return $lock->acquireRead() ? $lock : false;
}

function unlock($key, $lock)
{
    millitime();
    $lock->release();
    return true;
}

/*
 * refresh() throws LockConflictedException when someone else holds the
 * lock, and LockAcquiringException for everything else, wrapping its cause:
 * a LockExpiredException when the lock ran out before the refresh returned
 * (Lock::refresh catches its own and wraps it), or a lost connection. A
 * holder stops at any of them: the first two say the lock is no longer
 * its own, and the third that it cannot tell (an error, answered as such by
 * serve()).
 */
function refresh($key, $lock, $ttl_ms)
{
    millitime();
    try {
        $lock->refresh($ttl_ms / 1000);
    } catch (LockConflictedException | LockExpiredException $e) {
        return describe($e);
    } catch (LockAcquiringException $e) {
        if ($e->getPrevious() instanceof LockExpiredException) {
            return describe($e);
        }
        throw $e;
    }
    return true;
}

serve('lock', 'unlock', 'refresh', null, $shared ? ['shared' => 'readLock'] : []);
