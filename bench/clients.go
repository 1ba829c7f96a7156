package bench

import (
	"context"
	"os"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/adapters/goredispool"
	"github.com/locklab/locklab/adapters/rueidispool"
	"github.com/locklab/locklab/redistest"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// The client libraries a lock can be measured through. Each has its own
// floors.
const (
	ClientRedigo  = "redigo"
	ClientGoRedis = "go-redis"
	ClientRueidis = "rueidis"
)

// ClientKinds lists them in the order of the report's floors.
var ClientKinds = []string{ClientRedigo, ClientGoRedis, ClientRueidis}

// RedigoPool is what locklab strategies (strategy.Pool) and redsync's redigo
// adapter both take; *redis.Pool is one, and so are the pools of
// adapters/goredispool and adapters/rueidispool.
type RedigoPool interface {
	Get() redis.Conn
	GetContext(ctx context.Context) (redis.Conn, error)
}

// Clients are the connections a scenario gives its lockers. Every subject
// takes the one its Client names.
type Clients struct {
	Redigo  RedigoPool
	GoRedis *goredis.Client
	Rueidis rueidis.Client
}

// redigoPool returns a pool to the server keeping up to idle idle
// connections.
func (r *Runner) redigoPool(idle int) *redis.Pool {
	p := r.srv.NewPool()
	p.MaxIdle = idle
	return p
}

// goRedis returns a go-redis client to the server with a pool of size
// connections, go-redis's defaults otherwise.
func (r *Runner) goRedis(size int) *goredis.Client {
	opt := &goredis.Options{Addr: r.srv.Addr}
	if u := r.url(); u != "" {
		if o, err := goredis.ParseURL(u); err == nil {
			opt = o
		}
	}
	opt.PoolSize = size
	opt.MaxIdleConns = size
	opt.ReadTimeout = redistest.ReadTimeout
	opt.WriteTimeout = redistest.WriteTimeout
	return goredis.NewClient(opt)
}

// rueidisClient returns a rueidis client to the server with its default
// options: commands that goroutines send at once are pipelined on one
// connection.
func (r *Runner) rueidisClient() (rueidis.Client, error) {
	opt := rueidis.ClientOption{InitAddress: []string{r.srv.Addr}}
	if u := r.url(); u != "" {
		if o, err := rueidis.ParseURL(u); err == nil {
			opt = o
		}
	}
	opt.ConnWriteTimeout = redistest.WriteTimeout
	return rueidis.NewClient(opt)
}

// url is REDIS_URL when the server is the external one it names.
func (r *Runner) url() string {
	if r.srv.Kind == redistest.KindExternal && os.Getenv(redistest.EnvAddr) == "" {
		return os.Getenv(redistest.EnvURL)
	}
	return ""
}

// clients returns a client of every kind: a redigo pool keeping up to idle
// idle connections, a go-redis client with a pool of as many, and a
// rueidis client; close closes them.
func (r *Runner) clients(idle int) (c *Clients, close func(), err error) {
	rc, err := r.rueidisClient()
	if err != nil {
		return nil, nil, err
	}
	c = &Clients{Redigo: r.redigoPool(idle), GoRedis: r.goRedis(idle), Rueidis: rc}
	return c, func() {
		c.Redigo.(*redis.Pool).Close()
		c.GoRedis.Close()
		c.Rueidis.Close()
	}, nil
}

// bg is the context of the commands timed in the uncontended, allocation and
// parallel figures: one that never ends, as most calls that do not wait are
// made. (The report's diagnostics time luatoken called with a context that
// can be cancelled, and the same-client figure with one with a deadline.)
// The run's own context is checked between cycles.
var bg = context.Background()

// clientOf returns a client of the kind alone, keeping up to idle idle
// connections, and a function that closes it.
func (r *Runner) clientOf(kind string, idle int) (*Clients, func(), error) {
	switch kind {
	case ClientGoRedis:
		c := r.goRedis(idle)
		return &Clients{GoRedis: c}, func() { c.Close() }, nil
	case ClientRueidis:
		c, err := r.rueidisClient()
		if err != nil {
			return nil, nil, err
		}
		return &Clients{Rueidis: c}, c.Close, nil
	}
	p := r.redigoPool(idle)
	return &Clients{Redigo: p}, func() { p.Close() }, nil
}

// adapterPool returns the strategy.Pool that locklab's adapter for the
// client kind makes of c's client, or c's redigo pool for redigo itself.
func adapterPool(kind string, c *Clients) RedigoPool {
	switch kind {
	case ClientGoRedis:
		return goredispool.New(c.GoRedis)
	case ClientRueidis:
		return rueidispool.New(c.Rueidis)
	}
	return c.Redigo
}
