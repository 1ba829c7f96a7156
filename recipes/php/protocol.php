<?php
/*
 * The plumbing the PHP recipes share: the line protocol through which
 * locklab's suite drives a lock in another language (docs/exec.md), kept
 * apart so that each recipe file is its document's code and little else.
 *
 * A recipe defines its lock and unlock functions, then hands them to serve():
 *
 *   lock($key, $timeout)         $timeout in milliseconds. Returns what
 *                                unlock needs (a uuid, a time, the key...)
 *                                once the lock is taken, and a value PHP
 *                                reads as false (false, 0) when it is held by
 *                                someone else.
 *   unlock($key, $lock)          $lock is what lock returned. Returns true
 *                                when it gave the lock up, or a message (a
 *                                string) when it found the lock not held.
 *   refresh($key, $lock, $ttl)   optional; returns as unlock does.
 *
 * Each call is one request of the suite: one attempt, never a wait loop (the
 * suite retries). What goes wrong is answered "error <message>": an
 * exception, which a lost connection throws, and so does a command that
 * Redis refuses (StrictRedis below), as the Go packages stop at the first
 * failed command and return its error.
 */

// A notice or warning on standard output would break the protocol.
ini_set('display_errors', 'stderr');
error_reporting(E_ALL);

/**
 * phpredis's client, made to throw a RedisException when Redis answers a
 * command with an error. phpredis itself returns false and keeps the error
 * for getLastError(), which the documents' code never asks: it would take a
 * refused del for a release, and go on after a refused get as if the key
 * were missing (docs/php.md). These are the commands the recipes send.
 */
class StrictRedis extends Redis
{
    private function checked(callable $command)
    {
        $this->clearLastError();
        $reply = $command();
        $error = $this->getLastError();
        if ($error !== null) {
            $this->clearLastError();
            throw new RedisException($error);
        }
        return $reply;
    }

    public function get(...$a) { return $this->checked(fn () => parent::get(...$a)); }
    public function set(...$a) { return $this->checked(fn () => parent::set(...$a)); }
    public function setnx(...$a) { return $this->checked(fn () => parent::setnx(...$a)); }
    public function getSet(...$a) { return $this->checked(fn () => parent::getSet(...$a)); }
    public function del(...$a) { return $this->checked(fn () => parent::del(...$a)); }
    public function expire(...$a) { return $this->checked(fn () => parent::expire(...$a)); }
    public function pexpire(...$a) { return $this->checked(fn () => parent::pexpire(...$a)); }
    public function ttl(...$a) { return $this->checked(fn () => parent::ttl(...$a)); }
    public function pttl(...$a) { return $this->checked(fn () => parent::pttl(...$a)); }
    public function watch(...$a) { return $this->checked(fn () => parent::watch(...$a)); }
    public function unwatch(...$a) { return $this->checked(fn () => parent::unwatch(...$a)); }
    public function multi(...$a) { return $this->checked(fn () => parent::multi(...$a)); }
    public function exec(...$a) { return $this->checked(fn () => parent::exec(...$a)); }
    public function eval(...$a) { return $this->checked(fn () => parent::eval(...$a)); }
}

/**
 * The connection, made on first use to the address the suite gives in
 * LOCKLAB_REDIS_ADDR: the client's own proxy to Redis, logged in with the
 * client's own secret, LOCKLAB_REDIS_PASSWORD. With $connect false, null
 * until then.
 */
function getRedis(bool $connect = true): ?StrictRedis
{
    static $redis = null;
    if ($redis === null && $connect) {
        $r = new StrictRedis();
        connectProxy($r);
        $redis = $r;
    }
    return $redis;
}

/**
 * Connects $r, a phpredis client, to the client's proxy, LOCKLAB_REDIS_ADDR,
 * and logs it in with LOCKLAB_REDIS_PASSWORD. A library's program hands it a
 * plain Redis, which the library reads the replies of itself.
 */
function connectProxy(Redis $r): void
{
    [$host, $port] = proxyAddr();
    if (!$r->connect($host, $port, 5.0)) {
        throw new RuntimeException("cannot connect to Redis at $host:$port");
    }
    $password = getenv('LOCKLAB_REDIS_PASSWORD');
    if ($password !== false && $password !== '' && !$r->auth($password)) {
        throw new RuntimeException("the proxy at $host:$port refused LOCKLAB_REDIS_PASSWORD");
    }
}

/** The host and port of LOCKLAB_REDIS_ADDR. */
function proxyAddr(): array
{
    $addr = getenv('LOCKLAB_REDIS_ADDR');
    $colon = strrpos((string) $addr, ':');
    if ($colon === false) {
        throw new RuntimeException("LOCKLAB_REDIS_ADDR is not host:port: '$addr'");
    }
    return [trim(substr($addr, 0, $colon), '[]'), (int) substr($addr, $colon + 1)];
}

/**
 * Loads a library's autoloader, found on the include path as Debian's
 * packages install it (/usr/share/php/...). Without it the program says
 * which package to install, on standard error, and exits before its ready
 * line.
 */
function requireLibrary(string $autoload, string $package): void
{
    $path = stream_resolve_include_path($autoload);
    if ($path === false) {
        fwrite(STDERR, "$autoload is not on the include path (" . get_include_path() . "): install Debian's $package\n");
        exit(1);
    }
    require_once $path;
}

/**
 * Unix time in milliseconds (document 001's 自定获取毫秒函数). The reading is
 * reported to the suite, which records it in the timeline, before the recipe
 * goes on.
 */
function millitime(): int
{
    $now = (int) floor(microtime(true) * 1000);
    answer("clock $now");
    $go = fgets(STDIN);
    if ($go === false || trim($go) !== 'go') {
        fwrite(STDERR, "expected go after a clock notice, got " . var_export($go, true) . "\n");
        exit(2);
    }
    return $now;
}

/** A token unique to one acquisition: what document 002 leaves to the reader ("uuid的生成自己实现"). */
function uuid(): string
{
    return bin2hex(random_bytes(16));
}

/**
 * An exception and the ones it wraps: a framework's LockAcquiringException
 * says only "Failed to acquire"; the cause (a lost connection, a lock that
 * expired before acquire() returned) is the exception it wraps.
 */
function describe(Throwable $e): string
{
    $out = get_class($e) . ': ' . $e->getMessage();
    for ($p = $e->getPrevious(); $p !== null; $p = $p->getPrevious()) {
        $out .= '; caused by ' . get_class($p) . ': ' . $p->getMessage();
    }
    return $out;
}

function answer(string $line): void
{
    fwrite(STDOUT, $line . "\n");
    fflush(STDOUT);
}

/**
 * $s on one line, the proxy's address (which changes from run to run, in
 * a client library's "read error on connection to 127.0.0.1:port") written
 * as the variable that holds it, so that a timeline reads the same in
 * every run.
 */
function oneLine(string $s): string
{
    $addr = getenv('LOCKLAB_REDIS_ADDR');
    if ($addr !== false && $addr !== '') {
        $s = str_replace($addr, '$LOCKLAB_REDIS_ADDR', $s);
    }
    return trim(preg_replace('/\s+/', ' ', $s));
}

/**
 * Answers the suite's requests, one per line on standard input, until it
 * ends: "acquire <key> <ttl_ms>", "release <handle>" and, when $refresh is
 * given, "refresh <handle> <ttl_ms>". A lock that counts its TTL in steps
 * coarser than a millisecond gives the step, $granularity_ms, which the
 * ready line announces: the suite then asks only for TTLs that are whole
 * multiples of it.
 *
 * A lock that is not a mutex says which kind it is in $kind (docs/exec.md,
 * "Read-write locks and semaphores"), and the ready line announces it:
 *
 *   'shared' => readLock($key, $ttl_ms)  a read-write lock: $lock is the
 *                                        writer's attempt, readLock a
 *                                        reader's ("acquire-shared")
 *   'permits' => $n                      a semaphore of $n permits: $lock
 *                                        takes one
 *   'weighted' => lockN($key, $n, $ttl)  with 'permits': $n permits at
 *                                        once, all or nothing ("acquire-n")
 *
 * A lock of any kind that does not live at the suite's key alone names its
 * keys, K standing for the suite's key, and the ready line announces them
 * (docs/exec.md): 'keys' => ['{K}:time', ...], those whose state says
 * whether the lock is held, K among them when the lock writes it, which
 * the suite reads where it reads K; 'beside' => ['K:writer-intent', ...],
 * those it writes beside them, which the suite counts as the lock's own.
 *
 * readLock and lockN return as $lock does.
 */
function serve(callable $lock, callable $unlock, ?callable $refresh = null, ?int $granularity_ms = null, array $kind = []): void
{
    $locks = [];
    $ready = 'ready' . ($refresh === null ? '' : ' refresh') . ($granularity_ms === null ? '' : " granularity=$granularity_ms");
    if (isset($kind['shared'])) {
        $ready .= ' shared';
    }
    if (isset($kind['permits'])) {
        $ready .= " permits={$kind['permits']}" . (isset($kind['weighted']) ? ' weighted' : '');
    }
    foreach (['keys', 'beside'] as $word) {
        if (isset($kind[$word])) {
            $ready .= " $word=" . implode(',', $kind[$word]);
        }
    }
    answer($ready);
    while (($line = fgets(STDIN)) !== false) {
        $args = explode(' ', trim($line));
        try {
            getRedis(false)?->clearLastError();
            switch ($args[0]) {
                case 'acquire':
                case 'acquire-shared':
                case 'acquire-n':
                    if ($args[0] === 'acquire') {
                        $l = $lock($args[1], (int) $args[2]);
                    } elseif ($args[0] === 'acquire-shared' && isset($kind['shared'])) {
                        $l = $kind['shared']($args[1], (int) $args[2]);
                    } elseif ($args[0] === 'acquire-n' && isset($kind['weighted'])) {
                        $l = $kind['weighted']($args[1], (int) $args[2], (int) $args[3]);
                    } else {
                        answer("error this lock has no {$args[0]}");
                        break;
                    }
                    if (($e = getRedis(false)?->getLastError()) !== null) {
                        answer('error ' . oneLine($e));
                    } elseif (!$l) {
                        answer('busy');
                    } else {
                        $handle = 'h' . (count($locks) + 1);
                        $locks[$handle] = [$args[1], $l];
                        answer("ok $handle");
                    }
                    break;
                case 'release':
                case 'refresh':
                    if (!isset($locks[$args[1]])) {
                        answer("error no lock has the handle {$args[1]}");
                        break;
                    }
                    [$key, $l] = $locks[$args[1]];
                    if ($args[0] === 'release') {
                        $r = $unlock($key, $l);
                    } elseif ($refresh !== null) {
                        $r = $refresh($key, $l, (int) $args[2]);
                    } else {
                        answer('error this lock has no refresh');
                        break;
                    }
                    if (($e = getRedis(false)?->getLastError()) !== null) {
                        answer('error ' . oneLine($e));
                    } elseif ($r === true) {
                        answer('ok');
                    } elseif (is_string($r)) {
                        answer('not-held ' . oneLine($r));
                    } else {
                        answer('error ' . $args[0] . ' returned ' . oneLine(var_export($r, true)));
                    }
                    break;
                default:
                    answer('error unknown request: ' . oneLine($line));
            }
        } catch (Throwable $e) {
            answer('error ' . oneLine(describe($e)));
            // A transaction cut short is not left open for the next request.
            try {
                if (getRedis(false)?->getMode() === Redis::MULTI) {
                    getRedis(false)->discard();
                }
            } catch (Throwable $ignored) {
            }
        }
    }
}
