// Package goredispool runs the locklab strategies on a go-redis v9 client:
// New turns a *redis.Client (standalone, or a failover client from
// redis.NewFailoverClient), a *redis.ClusterClient or any
// redis.UniversalClient into a strategy.Pool.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	locks, err := luatoken.New(goredispool.New(rdb))
//
// On a *redis.ClusterClient each lock lives on the master of its key's hash
// slot (luatoken's fencing counter too: see luatoken.FenceKey), and
// go-redis follows the MOVED and ASK redirections when the slot moves to
// another master. A held lock survives the move (TestClusterSlotMigration);
// it does not survive its master's failover, as on Sentinel. The options
// need no change: writes go to masters (ReadOnly false, the default).
//
// Every command a strategy sends goes through the client: its connection
// pool, timeouts, retries and hooks apply. go-redis bounds a command by its
// context's deadline only with Options.ContextTimeoutEnabled; set it, so
// that a deadline given to Acquire, Release or Refresh, and the lease
// deadline that bounds luatoken's renewals, bound the commands too (without
// it they wait up to the client's ReadTimeout). A connection from the pool is a
// redigo redis.Conn that the strategies use as they use redigo's:
//
//   - one command runs on the client's pool, as client.Do would run it;
//   - scripts run with EVALSHA, and with EVAL when the server answers
//     NOSCRIPT (redigo's Script does this, as the error reply comes back as
//     a redis.Error);
//   - commands sent with Send and Flush run in one client pipeline;
//   - WATCH and MULTI take a connection of their own (Client.Conn, or on a
//     cluster the Conn of the master of the key they name, so that a
//     transaction there begins with WATCH) for the commands that follow,
//     given back on Close after DISCARD or UNWATCH when needed; other
//     UniversalClient implementations (a Ring) do not support them;
//   - SUBSCRIBE and the other Pub/Sub commands, sent with Send, open a
//     client PubSub, whose confirmations, messages and PONGs Receive
//     returns as redigo would (luatoken's WithNotify needs this).
//
// Replies come back in redigo's types. go-redis reads a status reply and a
// bulk string both as a string; the command tells which redigo would have
// returned: a status (a string) for SET, MULTI, WATCH, PING and the other
// commands whose reply is a status, a bulk string (a []byte) otherwise.
// RESP3 replies (go-redis's default protocol) are turned into their RESP2
// form: a map into an array of keys and values, a double into its bulk
// string, a boolean into 1 or 0.
package goredispool

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/internal/redigoconn"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/go-redis/v9"
)

// Pool is a strategy.Pool on a go-redis client. It is safe for concurrent
// use and holds nothing of its own: closing the client is up to its owner.
type Pool struct {
	b backend
}

var _ strategy.Pool = (*Pool)(nil)

// New returns a Pool on c, which must not be nil.
func New(c redis.UniversalClient) *Pool {
	return &Pool{b: backend{c: c}}
}

var errNilClient = errors.New("goredispool: nil client")

// GetContext returns a connection over the client. It fails only when ctx
// is done already, or the client is nil: the client's own pool is entered
// on each command.
func (p *Pool) GetContext(ctx context.Context) (redigo.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.b.c == nil {
		return nil, errNilClient
	}
	return redigoconn.New(&p.b), nil
}

// Get returns a connection over the client, for code written against
// redigo's *redis.Pool.
func (p *Pool) Get() redigo.Conn {
	return redigoconn.New(&p.b)
}

// Client returns the client the pool runs on.
func (p *Pool) Client() redis.UniversalClient { return p.b.c }

type backend struct {
	c redis.UniversalClient
}

func (b *backend) Do(ctx context.Context, cmd *redigoconn.Cmd) (any, error) {
	return reply(b.c.Do(ctx, cmd.Args...), cmd)
}

func (b *backend) DoMulti(ctx context.Context, cmds []*redigoconn.Cmd) []redigoconn.Result {
	return pipeline(ctx, b.c.Pipeline(), cmds)
}

var (
	errNoPin = errors.New("goredispool: WATCH and MULTI need a *redis.Client or a *redis.ClusterClient")
	errNoKey = errors.New("goredispool: on a cluster, a transaction starts with a command that names a key (WATCH), which chooses its node")
)

func (b *backend) Pin(ctx context.Context, key string) (redigoconn.Pinned, error) {
	switch c := b.c.(type) {
	case *redis.Client:
		return pinned{c.Conn()}, nil
	case *redis.ClusterClient:
		if key == "" {
			return nil, errNoKey
		}
		master, err := c.MasterForKey(ctx, key)
		if err != nil {
			return nil, err
		}
		return pinned{master.Conn()}, nil
	}
	return nil, errNoPin
}

func (b *backend) PubSub(ctx context.Context, first *redigoconn.Cmd) (redigoconn.PubSub, error) {
	switch c := b.c.(type) {
	case *redis.Client, *redis.ClusterClient:
		// Opened empty, so that the first command's error is seen.
		p := pubSub{c.Subscribe(ctx)}
		if err := p.Send(ctx, first); err != nil {
			p.Close()
			return nil, err
		}
		return p, nil
	}
	// Others (a Ring) choose the server by the first channel, and panic
	// when they have none.
	return openPubSub(ctx, b.c, first)
}

func openPubSub(ctx context.Context, c redis.UniversalClient, first *redigoconn.Cmd) (p redigoconn.PubSub, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("goredispool: %T: %v", c, r)
		}
	}()
	args := strArgs(first)
	switch name := first.Name(); {
	case strings.EqualFold(name, "SUBSCRIBE") && len(args) > 0:
		return pubSub{c.Subscribe(ctx, args...)}, nil
	case strings.EqualFold(name, "PSUBSCRIBE") && len(args) > 0:
		return pubSub{c.PSubscribe(ctx, args...)}, nil
	}
	return nil, fmt.Errorf("goredispool: %T cannot open a Pub/Sub connection with %s", c, first.Name())
}

// pinned is a connection of the client's own.
type pinned struct{ c *redis.Conn }

func (p pinned) Do(ctx context.Context, cmd *redigoconn.Cmd) (any, error) {
	rc := redis.NewCmd(ctx, cmd.Args...)
	_ = p.c.Process(ctx, rc)
	return reply(rc, cmd)
}

func (p pinned) DoMulti(ctx context.Context, cmds []*redigoconn.Cmd) []redigoconn.Result {
	return pipeline(ctx, p.c.Pipeline(), cmds)
}

func (p pinned) Close() error { return p.c.Close() }

// pipeline runs cmds in one pipeline of pipe.
func pipeline(ctx context.Context, pipe redis.Pipeliner, cmds []*redigoconn.Cmd) []redigoconn.Result {
	rcs := make([]*redis.Cmd, len(cmds))
	for i, cmd := range cmds {
		rcs[i] = pipe.Do(ctx, cmd.Args...)
	}
	_, _ = pipe.Exec(ctx) // each command holds its own error
	rs := make([]redigoconn.Result, len(cmds))
	for i, rc := range rcs {
		rs[i].Reply, rs[i].Err = reply(rc, cmds[i])
	}
	return rs
}

// reply returns the reply of rc in redigo's types.
func reply(rc *redis.Cmd, cmd *redigoconn.Cmd) (any, error) {
	v, err := rc.Result()
	if err != nil {
		if err == redis.Nil {
			return nil, nil
		}
		var re redis.Error
		if errors.As(err, &re) {
			return nil, redigo.Error(re.Error())
		}
		return nil, err
	}
	return value(v, cmd.Kind, cmd), nil
}

// value converts a value go-redis read into redigo's type for a reply of
// kind k; cmd types the elements of an array reply (nil below the top).
func value(v any, k redigoconn.Kind, cmd *redigoconn.Cmd) any {
	switch x := v.(type) {
	case string:
		if k == redigoconn.Status {
			return v
		}
		return []byte(x)
	case int64, nil:
		return v
	case []any:
		for i, e := range x { // go-redis's slice is the command's own
			ek := redigoconn.Bulk
			if cmd != nil {
				ek = cmd.Elem(i)
			}
			x[i] = value(e, ek, nil)
		}
		return x
	case redis.Error:
		return redigo.Error(x.Error())
	case error:
		return x
	case float64:
		return []byte(strconv.FormatFloat(x, 'g', -1, 64))
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case *big.Int:
		return []byte(x.String())
	case map[any]any:
		out := make([]any, 0, 2*len(x))
		for mk, mv := range x {
			out = append(out, value(mk, redigoconn.Bulk, nil), value(mv, redigoconn.Bulk, nil))
		}
		return out
	case map[string]any:
		out := make([]any, 0, 2*len(x))
		for mk, mv := range x {
			out = append(out, []byte(mk), value(mv, redigoconn.Bulk, nil))
		}
		return out
	}
	return v
}

// pubSub is a client PubSub.
type pubSub struct{ ps *redis.PubSub }

func (p pubSub) Send(ctx context.Context, cmd *redigoconn.Cmd) error {
	args := strArgs(cmd)
	switch name := cmd.Name(); {
	case strings.EqualFold(name, "SUBSCRIBE"):
		return p.ps.Subscribe(ctx, args...)
	case strings.EqualFold(name, "UNSUBSCRIBE"):
		return p.ps.Unsubscribe(ctx, args...)
	case strings.EqualFold(name, "PSUBSCRIBE"):
		return p.ps.PSubscribe(ctx, args...)
	case strings.EqualFold(name, "PUNSUBSCRIBE"):
		return p.ps.PUnsubscribe(ctx, args...)
	default: // PING
		return p.ps.Ping(ctx, args...)
	}
}

func (p pubSub) Receive(ctx context.Context) (any, error) {
	var timeout time.Duration
	if dl, ok := ctx.Deadline(); ok {
		if timeout = time.Until(dl); timeout <= 0 {
			return nil, context.DeadlineExceeded
		}
	}
	m, err := p.ps.ReceiveTimeout(ctx, timeout)
	if err != nil {
		return nil, err
	}
	switch m := m.(type) {
	case *redis.Subscription:
		return []any{[]byte(m.Kind), []byte(m.Channel), int64(m.Count)}, nil
	case *redis.Message:
		if m.Pattern != "" {
			return []any{[]byte("pmessage"), []byte(m.Pattern), []byte(m.Channel), []byte(m.Payload)}, nil
		}
		return []any{[]byte("message"), []byte(m.Channel), []byte(m.Payload)}, nil
	case *redis.Pong:
		payload := m.Payload
		if payload == "PONG" { // RESP3 answers PING with a plain PONG
			payload = ""
		}
		return []any{[]byte("pong"), []byte(payload)}, nil
	}
	return m, nil
}

func (p pubSub) Close() error { return p.ps.Close() }

// strArgs returns the arguments of cmd, after its name, as strings.
func strArgs(cmd *redigoconn.Cmd) []string {
	args := make([]string, len(cmd.Args)-1)
	for i, a := range cmd.Args[1:] {
		args[i] = redigoconn.ArgString(a)
	}
	return args
}
