<?php
/*
 * symfony-semaphore: Symfony's Semaphore component (Debian's
 * php-symfony-semaphore, 5.4) on its RedisStore over phpredis, used as its
 * documentation shows:
 *
 *   $factory = new SemaphoreFactory(new RedisStore($redis));
 *   $semaphore = $factory->createSemaphore($resource, $limit, $weight, $ttl);
 *   $semaphore->acquire();  // EVAL on {resource}:time and {resource}:weight
 *   $semaphore->refresh($ttl);
 *   $semaphore->release();  // EVAL: ZREM the token from both
 *
 * The store keeps two sorted sets beside each other, named after the
 * resource in braces (one hash slot): {resource}:time, each holder's
 * token scored by its expiry, and {resource}:weight, the same tokens
 * scored by their weight. An acquire drops the tokens whose expiry is
 * past from :time, then from :weight (ZINTERSTORE with :time, weights 1
 * and 0), and adds its token to both when the weights left and its own
 * fit in the limit; both sets expire 10 s after the latest expiry. The
 * expiries are the process's time(), whole seconds, plus the TTL:
 * the lock counts seconds, and the ready line announces a granularity of
 * 1000 ms. Each call that reads time() (acquire, refresh) is preceded by
 * a clock notice (millitime(), protocol.php).
 *
 * The limit is the program's: LOCKLAB_PERMITS, 2 when unset, announced as
 * permits=<n>. A semaphore's weight is its own, fixed when it is created:
 * acquire creates one of weight 1, and acquire-n <key> <n> <ttl_ms> one of
 * weight n (ready ... weighted). refresh is $semaphore->refresh($ttl),
 * which answers not-held when it finds the token gone
 * (SemaphoreExpiredException). release() says nothing of what it found:
 * it is answered ok. One attempt per acquire: the suite does the waiting.
 */
require __DIR__ . '/protocol.php';
requireLibrary('Symfony/Component/Semaphore/autoload.php', 'php-symfony-semaphore');

use Symfony\Component\Semaphore\Exception\SemaphoreExpiredException;
use Symfony\Component\Semaphore\SemaphoreFactory;
use Symfony\Component\Semaphore\Store\RedisStore;

$limit = (int) (getenv('LOCKLAB_PERMITS') ?: 2);
if ($limit < 1) {
    fwrite(STDERR, "LOCKLAB_PERMITS must be a whole number, 1 or more\n");
    exit(1);
}

function factory(): SemaphoreFactory
{
    static $factory = null;
    if ($factory === null) {
        $redis = new Redis();
        connectProxy($redis);
        $factory = new SemaphoreFactory(new RedisStore($redis));
    }
    return $factory;
}

/** The TTL in seconds, which the semaphore counts in. */
function seconds(int $ttl_ms): int
{
    if ($ttl_ms % 1000 !== 0) {
        throw new InvalidArgumentException("a TTL of {$ttl_ms} ms is not whole seconds, which the semaphore counts in");
    }
    return intdiv($ttl_ms, 1000);
}

function lockN($key, $n, $ttl_ms)
{
    global $limit;
    $semaphore = factory()->createSemaphore($key, $limit, $n, seconds($ttl_ms));
    millitime();
    return $semaphore->acquire() ? $semaphore : false;
}

function lock($key, $ttl_ms)
{
    return lockN($key, 1, $ttl_ms);
}

function unlock($key, $semaphore)
{
    $semaphore->release();
    return true;
}

function refresh($key, $semaphore, $ttl_ms)
{
    $ttl = seconds($ttl_ms);
    millitime();
    try {
        $semaphore->refresh($ttl);
    } catch (SemaphoreExpiredException $e) {
        return describe($e);
    }
    return true;
}

serve('lock', 'unlock', 'refresh', 1000, ['permits' => $limit, 'weighted' => 'lockN', 'keys' => ['{K}:time', '{K}:weight'], 'beside' => ['{K}']]);
