package bench

import (
	"context"
	"errors"

	"github.com/gomodule/redigo/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// The floors are commands sent by hand, without a lock library, through
// each client kind the way the locks use it: PING; SET NX PX then DEL (the
// plainest lock with an expiry); and luatoken's own commands, SET NX PX with
// a token then a compare-and-delete script by EVALSHA.

// hand sends the floors' commands through one client.
type hand struct {
	ping    func(ctx context.Context) error
	setDel  func(ctx context.Context, key string) error
	setEval func(ctx context.Context, key string) error
}

// handOf returns the floors' commands through c's client of the kind.
func handOf(kind string, c *Clients) hand {
	switch kind {
	case ClientGoRedis:
		rc := c.GoRedis
		return hand{
			ping:    func(ctx context.Context) error { return rc.Ping(ctx).Err() },
			setDel:  func(ctx context.Context, key string) error { return setDelGoRedis(ctx, rc, key) },
			setEval: func(ctx context.Context, key string) error { return setEvalGoRedis(ctx, rc, key) },
		}
	case ClientRueidis:
		rc := c.Rueidis
		return hand{
			ping:    func(ctx context.Context) error { return rc.Do(ctx, rc.B().Ping().Build()).Error() },
			setDel:  func(ctx context.Context, key string) error { return setDelRueidis(ctx, rc, key) },
			setEval: func(ctx context.Context, key string) error { return setEvalRueidis(ctx, rc, key) },
		}
	}
	p := c.Redigo
	return hand{
		ping:    func(ctx context.Context) error { return doRedigo(ctx, p, "PING") },
		setDel:  func(ctx context.Context, key string) error { return setDelRedigo(ctx, p, key) },
		setEval: func(ctx context.Context, key string) error { return setEvalRedigo(ctx, p, key) },
	}
}

func twice(run func() error) error {
	if err := run(); err != nil {
		return err
	}
	return run()
}

func doRedigo(ctx context.Context, p RedigoPool, cmd string, args ...any) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Do(cmd, args...)
	return err
}

// pingRedigoContext is PING through redis.DoContext instead of Do: what a
// command costs on the path the locklab strategies take with a context that
// can end.
func pingRedigoContext(ctx context.Context, p RedigoPool) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = redis.DoContext(c, ctx, "PING")
	return err
}

// setDelRedigo sends what the plainest lock with an expiry sends, SET NX PX
// then DEL, each on a connection from the pool as the locks take them.
func setDelRedigo(ctx context.Context, p RedigoPool, key string) error {
	if err := doRedigo(ctx, p, "SET", key, "1", "NX", "PX", TTL.Milliseconds()); err != nil {
		return err
	}
	return doRedigo(ctx, p, "DEL", key)
}

// casDelSrc is the compare-and-delete of a safe release: the work of
// luatoken's release script, without its PUBLISH.
const casDelSrc = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`

// The compare-and-delete as each client library runs scripts: EVALSHA, and
// EVAL when the server answers NOSCRIPT.
var (
	casDel        = redis.NewScript(1, casDelSrc)
	casDelGoRedis = goredis.NewScript(casDelSrc)
	casDelRueidis = rueidis.NewLuaScript(casDelSrc)
)

// handToken is as long as luatoken's tokens (an xid).
const handToken = "d4ebl8o3p1rs1v8h0mj0"

var errNoLock = errors.New("bench: the compare-and-delete found no lock")

// setEvalRedigo sends luatoken's commands without luatoken: SET NX PX with
// a token, then the compare-and-delete by EVALSHA, each on a connection
// from the pool.
func setEvalRedigo(ctx context.Context, p RedigoPool, key string) error {
	if err := doRedigo(ctx, p, "SET", key, handToken, "NX", "PX", TTL.Milliseconds()); err != nil {
		return err
	}
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	n, err := redis.Int(casDel.Do(c, key, handToken))
	if err == nil && n != 1 {
		err = errNoLock
	}
	return err
}

// setDelGoRedis is setDelRedigo through go-redis, with the same arguments.
func setDelGoRedis(ctx context.Context, c *goredis.Client, key string) error {
	if err := c.Do(ctx, "SET", key, "1", "NX", "PX", TTL.Milliseconds()).Err(); err != nil {
		return err
	}
	return c.Del(ctx, key).Err()
}

// setEvalGoRedis is setEvalRedigo through go-redis, its script by
// Script.Run.
func setEvalGoRedis(ctx context.Context, c *goredis.Client, key string) error {
	if err := c.Do(ctx, "SET", key, handToken, "NX", "PX", TTL.Milliseconds()).Err(); err != nil {
		return err
	}
	n, err := casDelGoRedis.Run(ctx, c, []string{key}, handToken).Int()
	if err == nil && n != 1 {
		err = errNoLock
	}
	return err
}

// setDelRueidis is setDelRedigo through rueidis, with its command builder.
func setDelRueidis(ctx context.Context, c rueidis.Client, key string) error {
	set := c.B().Set().Key(key).Value("1").Nx().PxMilliseconds(TTL.Milliseconds()).Build()
	if err := c.Do(ctx, set).Error(); err != nil {
		return err
	}
	return c.Do(ctx, c.B().Del().Key(key).Build()).Error()
}

// setEvalRueidis is setEvalRedigo through rueidis, its script by Lua.Exec.
func setEvalRueidis(ctx context.Context, c rueidis.Client, key string) error {
	set := c.B().Set().Key(key).Value(handToken).Nx().PxMilliseconds(TTL.Milliseconds()).Build()
	if err := c.Do(ctx, set).Error(); err != nil {
		return err
	}
	n, err := casDelRueidis.Exec(ctx, c, []string{key}, []string{handToken}).AsInt64()
	if err == nil && n != 1 {
		err = errNoLock
	}
	return err
}
