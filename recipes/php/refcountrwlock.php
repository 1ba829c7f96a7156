<?php
/*
 * refcountrwlock: the read-write lock of the Go module e-chip/redis-rwlock,
 * as strategy/refcountrwlock writes it (docs/kinds.md), whose script files
 * it sends as they are: a global lock key K, a count of readers that never
 * expires, K:readers, and a writer's intent, K:writer-intent, each step
 * one of the module's Lua scripts.
 *
 *   read:          unless a writer waits, INCR K:readers; the reader that
 *                  brings it to 1 takes K with SET NX PX and the readers'
 *                  token (and undoes its INCR when it cannot)
 *   write:         SET K:writer-intent PX ttl, then SET K NX PX with the
 *                  writer's token; on success DEL K:readers and the intent
 *   read unlock:   DECR K:readers; the last reader DELs K if it holds the
 *                  readers' token
 *   write unlock:  DEL K if it holds the writer's token
 *   refresh:       PEXPIRE K if it holds the caller's token
 *
 * Each program is one client with a writer token of its own, as the Go
 * strategy is. The ready line names its keys as the Go column declares
 * them: keys=K,K:readers, the lock's state, which the suite reads where
 * it reads K (strategy.Keyed), and beside=K:writer-intent (strategy.SideKeyed).
 */
require __DIR__ . '/protocol.php';

const READER_TOKEN = 'read_c2d-75a1-4b5b-a6fb-b0754224c666';

/** The Go strategy's scripts, from its files, as it sends them. */
function script(string $name): string
{
    static $scripts = [];
    return $scripts[$name] ??= file_get_contents(__DIR__ . "/../../strategy/refcountrwlock/$name.lua");
}

/** This client's writer token. */
function writerToken(): string
{
    static $token = null;
    return $token ??= uuid();
}

function lock($key, $ttl_ms)
{
    $token = writerToken();
    $won = getRedis()->eval(script('write_lock'), [$key, "$key:readers", "$key:writer-intent", $token, $ttl_ms], 3);
    return $won === 1 ? $token : false;
}

function readLock($key, $ttl_ms)
{
    // Writer preference, the module's default: a waiting writer keeps new readers out.
    $won = getRedis()->eval(script('read_lock'), [$key, "$key:readers", "$key:writer-intent", READER_TOKEN, $ttl_ms, 1], 3);
    return $won === 1 ? READER_TOKEN : false;
}

function unlock($key, $token)
{
    if ($token === READER_TOKEN) {
        $ok = getRedis()->eval(script('read_unlock'), [$key, "$key:readers", $token], 2);
    } else {
        $ok = getRedis()->eval(script('write_unlock'), [$key, $token], 1);
    }
    return $ok === 1 ? true : 'K does not hold the lock\'s token';
}

function refresh($key, $token, $ttl_ms)
{
    if (getRedis()->eval(script('refresh'), [$key, $token, $ttl_ms], 1) !== 1) {
        return 'K does not hold the lock\'s token';
    }
    return true;
}

serve('lock', 'unlock', 'refresh', null, ['shared' => 'readLock', 'keys' => ['K', 'K:readers'], 'beside' => ['K:writer-intent']]);
