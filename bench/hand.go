package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"

	"github.com/gomodule/redigo/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// The floors are commands sent by hand, without a lock library, through
// each client kind the way the locks use it: PING; SET NX PX then DEL (the
// plainest lock with an expiry); and luatoken's own commands, SET NX PX with
// a new token then a compare-and-delete script by EVALSHA with that token.

// hand sends the floors' commands through one client.
type hand struct {
	ping   func(ctx context.Context) error
	setDel func(ctx context.Context, key string) error
	// setEvalTok sends luatoken's commands with token, a string held in
	// an interface value as the client libraries take their arguments.
	setEvalTok func(ctx context.Context, key string, token any) error
}

// setEval sends luatoken's commands as luatoken sends them, with a token
// of their own: the baseline of the adapters' target.
func (h hand) setEval(ctx context.Context, key string) error {
	return h.setEvalTok(ctx, key, any(newToken()))
}

// setEvalFixed sends the same commands with handToken every time: not what
// a lock sends, kept to show what a new token costs (see newToken).
func (h hand) setEvalFixed(ctx context.Context, key string) error {
	return h.setEvalTok(ctx, key, handTokenArg)
}

// handOf returns the floors' commands through c's client of the kind.
func handOf(kind string, c *Clients) hand {
	switch kind {
	case ClientGoRedis:
		rc := c.GoRedis
		return hand{
			ping:       func(ctx context.Context) error { return rc.Ping(ctx).Err() },
			setDel:     func(ctx context.Context, key string) error { return setDelGoRedis(ctx, rc, key) },
			setEvalTok: func(ctx context.Context, key string, tok any) error { return setEvalGoRedis(ctx, rc, key, tok) },
		}
	case ClientRueidis:
		rc := c.Rueidis
		return hand{
			ping:   func(ctx context.Context) error { return rc.Do(ctx, rc.B().Ping().Build()).Error() },
			setDel: func(ctx context.Context, key string) error { return setDelRueidis(ctx, rc, key) },
			setEvalTok: func(ctx context.Context, key string, tok any) error {
				return setEvalRueidis(ctx, rc, key, tok.(string))
			},
		}
	}
	p := c.Redigo
	return hand{
		ping:       func(ctx context.Context) error { return doRedigo(ctx, p, "PING") },
		setDel:     func(ctx context.Context, key string) error { return setDelRedigo(ctx, p, key) },
		setEvalTok: func(ctx context.Context, key string, tok any) error { return setEvalRedigo(ctx, p, key, tok) },
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

// A lock writes a token of its own at its key, so that its release can
// tell its own lock from the next holder's: luatoken writes a new xid with
// every TryAcquire and sends it again in the release script's ARGV. Sending
// those commands by hand means sending a new token every cycle too, and
// that costs more than the same token every time: the client makes the
// token and boxes it as an argument, and Redis's Lua makes a new string of
// each ARGV it does not hold already, where a token it has seen is found in
// its string table (INFO commandstats shows the difference in EVALSHA).
//
// newToken is the cheapest unique token one would write by hand: a random
// prefix drawn once per process and a counter, 20 characters as luatoken's
// xids, unique within the process and, with 40 random bits, across
// processes. An xid also reads the clock; the baseline takes the cheaper
// token, so that the choice of xid counts against luatoken, not for it.
func newToken() string {
	var b [tokenLen]byte
	copy(b[:], tokenPrefix[:])
	n := tokenCount.Add(1)
	for i := tokenLen - 1; i >= len(tokenPrefix); i-- {
		b[i] = tokenDigits[n&31]
		n >>= 5
	}
	return string(b[:])
}

const (
	tokenLen    = 20 // an xid's length
	tokenDigits = "0123456789abcdefghijklmnopqrstuv"
)

var (
	tokenPrefix = func() (p [8]byte) {
		for i := range p {
			p[i] = tokenDigits[rand.IntN(len(tokenDigits))]
		}
		return p
	}()
	tokenCount atomic.Uint64
)

// handToken is the one token of setEvalFixed, as long as luatoken's, and
// handTokenArg the same in the interface value the commands take, made
// once (a constant converted to an interface allocates nothing, a string
// made at run time does).
const handToken = "d4ebl8o3p1rs1v8h0mj0"

var handTokenArg any = handToken

var errNoLock = errors.New("bench: the compare-and-delete found no lock")

// setEvalRedigo sends luatoken's commands without luatoken: SET NX PX with
// token, then the compare-and-delete by EVALSHA with the same, each on a
// connection from the pool.
func setEvalRedigo(ctx context.Context, p RedigoPool, key string, token any) error {
	if err := doRedigo(ctx, p, "SET", key, token, "NX", "PX", TTL.Milliseconds()); err != nil {
		return err
	}
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	n, err := redis.Int(casDel.Do(c, key, token))
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

// goredisConn is what setEvalGoRedis sends through: a pooled client, or
// a connection of a goroutine's own.
type goredisConn interface {
	goredis.Scripter
	Do(ctx context.Context, args ...any) *goredis.Cmd
}

// setEvalGoRedis is setEvalRedigo through go-redis, its script by
// Script.Run, on a pooled client or a pinned connection.
func setEvalGoRedis(ctx context.Context, c goredisConn, key string, token any) error {
	if err := c.Do(ctx, "SET", key, token, "NX", "PX", TTL.Milliseconds()).Err(); err != nil {
		return err
	}
	n, err := casDelGoRedis.Run(ctx, c, []string{key}, token).Int()
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
func setEvalRueidis(ctx context.Context, c rueidis.Client, key, token string) error {
	set := c.B().Set().Key(key).Value(token).Nx().PxMilliseconds(TTL.Milliseconds()).Build()
	if err := c.Do(ctx, set).Error(); err != nil {
		return err
	}
	n, err := casDelRueidis.Exec(ctx, c, []string{key}, []string{token}).AsInt64()
	if err == nil && n != 1 {
		err = errNoLock
	}
	return err
}
