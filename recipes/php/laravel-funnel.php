<?php
/*
 * laravel-funnel: Laravel's concurrency limiter (Debian's
 * php-illuminate-redis, 8.83), Redis::funnel, on the phpredis connection
 * of a RedisManager (laravel-redis.php). Its documentation runs a callback
 * in one of $n slots:
 *
 *   Redis::funnel($name)->limit($n)->releaseAfter($seconds)->block($timeout)
 *       ->then(function () { ... }, function () { ... });
 *
 * then() builds a ConcurrencyLimiter($connection, $name, $n, $seconds) and
 * calls its block($timeout, $callback): acquire($id) until it gets a slot,
 * the callback, then release($slot, $id). The slots are n string keys,
 * $name . 1 to $name . $n; acquire($id), with $id = Str::random(20), is one
 * script that MGETs them and SETs the first missing one to $id EX $seconds,
 * returning its name (nil when all n are taken); release is a script that
 * DELs the slot while it holds $id. A slot's expiry is the server's, in
 * whole seconds: the ready line announces a granularity of 1000 ms.
 *
 * The suite's acquire and release come as separate requests, so the program
 * reaches the two steps that block() takes around the callback through a
 * subclass, Funnel, that only makes them public; acquire is one attempt,
 * what block(0) makes before it gives up (the suite does the waiting). The
 * limiter is built from the builder's settings, as then() builds it. n is
 * the program's: LOCKLAB_PERMITS, 2 when unset, announced as permits=<n>.
 * release() returns nothing, whatever the slot held: it is answered ok.
 * The limiter has no refresh and no weights.
 */
require __DIR__ . '/protocol.php';
require __DIR__ . '/laravel-redis.php';

use Illuminate\Redis\Limiters\ConcurrencyLimiter;
use Illuminate\Support\Str;

$limit = (int) (getenv('LOCKLAB_PERMITS') ?: 2);
if ($limit < 1) {
    fwrite(STDERR, "LOCKLAB_PERMITS must be a whole number, 1 or more\n");
    exit(1);
}

/** A ConcurrencyLimiter whose two steps are public: nothing else changes. */
final class Funnel extends ConcurrencyLimiter
{
    public function attempt(string $id)
    {
        return $this->acquire($id);
    }

    public function free(string $slot, string $id): void
    {
        $this->release($slot, $id);
    }
}

function lock($name, $ttl_ms)
{
    global $limit;
    if ($ttl_ms % 1000 !== 0) {
        throw new InvalidArgumentException("a TTL of {$ttl_ms} ms is not whole seconds, which releaseAfter(\$seconds) counts in");
    }
    $b = laravelRedis()->connection()->funnel($name)->limit($limit)->releaseAfter(intdiv($ttl_ms, 1000));
    $funnel = new Funnel($b->connection, $b->name, $b->maxLocks, $b->releaseAfter);
    $id = Str::random(20);
    $slot = $funnel->attempt($id);
    return $slot ? [$funnel, $slot, $id] : false;
}

function unlock($name, $held)
{
    [$funnel, $slot, $id] = $held;
    $funnel->free($slot, $id);
    return true;
}

serve('lock', 'unlock', null, 1000, ['permits' => $limit, 'keys' => array_map(fn ($i) => "K$i", range(1, $limit))]);
