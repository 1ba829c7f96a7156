<?php
/*
 * The Redis connections of Laravel's programs (laravel.php,
 * laravel-funnel.php): a RedisManager on phpredis whose 'default'
 * connection dials the client's proxy, LOCKLAB_REDIS_ADDR, and logs in with
 * LOCKLAB_REDIS_PASSWORD. No prefix and no database: the keys are the
 * suite's, in the server's database 0, which Laravel's 'default' is anyway.
 */
requireLibrary('Illuminate/Redis/autoload.php', 'php-illuminate-redis');

use Illuminate\Redis\RedisManager;

function laravelRedis(): RedisManager
{
    static $redis = null;
    if ($redis === null) {
        [$host, $port] = proxyAddr();
        $redis = new RedisManager(null, 'phpredis', ['default' => [
            'host' => $host,
            'port' => $port,
            'password' => getenv('LOCKLAB_REDIS_PASSWORD') ?: null,
        ]]);
    }
    return $redis;
}
