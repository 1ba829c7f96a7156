<?php
/*
 * laravel: Laravel's cache lock (Debian's php-illuminate-cache and
 * php-illuminate-redis, 8.83) on the phpredis connection of a RedisManager,
 * used as its documentation shows, Cache::lock($name, $seconds) being
 * $store->lock($name, $seconds):
 *
 *   $lock = $store->lock($name);            // seconds 0, Cache::lock's default:
 *   $lock->get();                           //   SETNX name owner, no expiry
 *   $lock = $store->lock($name, $seconds);  // SET name owner EX seconds NX
 *   $lock->release();                       // EVAL: DEL while name holds owner
 *
 * Run as laravel.php, the lock is Cache::lock($name), and the suite's TTL
 * goes nowhere; as laravel.php seconds, it is Cache::lock($name, $seconds),
 * the suite's TTL in whole seconds: its ready line announces a granularity
 * of 1000 ms, so the suite asks for whole seconds only (any other TTL is
 * an error: the lock cannot express it). The store has no prefix, so that the
 * lock's key is the suite's key: an application's prefixes (cache.prefix,
 * the connection's prefix option) only rename it; and no database, which
 * would send SELECT with the first lock: Laravel's 'default' connection,
 * which locks use, is the server's database 0 anyway. One attempt per acquire
 * request (get(), not block()): the suite does the waiting. The lock has no
 * refresh.
 */
require __DIR__ . '/protocol.php';
requireLibrary('Illuminate/Cache/autoload.php', 'php-illuminate-cache');
require __DIR__ . '/laravel-redis.php';

use Illuminate\Cache\RedisStore;

$withSeconds = ($argv[1] ?? '') === 'seconds';

function store(): RedisStore
{
    static $store = null;
    if ($store === null) {
        $store = new RedisStore(laravelRedis(), '', 'default');
    }
    return $store;
}

function lock($name, $ttl_ms)
{
    global $withSeconds;
    if (!$withSeconds) {
        $lock = store()->lock($name);
    } elseif ($ttl_ms % 1000 !== 0) {
        throw new InvalidArgumentException("a TTL of {$ttl_ms} ms is not whole seconds, which Cache::lock(\$name, \$seconds) counts in");
    } else {
        $lock = store()->lock($name, intdiv($ttl_ms, 1000));
    }
    return $lock->get() ? $lock : false;
}

function unlock($name, $lock)
{
    if (!$lock->release()) {
        return 'release() returned false: the key does not hold this owner';
    }
    return true;
}

// Cache::lock($name, $seconds) counts whole seconds: the ready line says
// so, and the suite runs the lock at a scale of seconds.
serve('lock', 'unlock', null, $withSeconds ? 1000 : null);
