// Package rueidispool runs the locklab strategies on a rueidis client: New
// turns a rueidis.Client (standalone, sentinel or cluster) into a
// strategy.Pool.
//
//	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{"localhost:6379"}})
//	locks, err := luatoken.New(rueidispool.New(client))
//
// Every command a strategy sends goes through the client with Do, so
// rueidis pipelines the commands of concurrent goroutines on its shared
// connection automatically: many goroutines taking and releasing locks at
// once share round trips and system calls. A connection from the pool is a
// redigo redis.Conn that the strategies use as they use redigo's:
//
//   - one command runs with Client.Do, built as an arbitrary command whose
//     key (the first argument, or the first key of EVAL and EVALSHA) routes
//     it on a cluster; the commands that block on the server (BLPOP and the
//     like, WAIT) are marked as blocking, so that rueidis runs them on a
//     connection of their own;
//   - scripts run with EVALSHA, and with EVAL when the server answers
//     NOSCRIPT (redigo's Script does this, as the error reply comes back as
//     a redis.Error with the server's whole text);
//   - commands sent with Send and Flush run with one DoMulti;
//   - WATCH and MULTI take a dedicated connection (Client.Dedicate) for the
//     commands that follow, given back on Close after DISCARD or UNWATCH
//     when needed; on a cluster the first command's key chooses its node,
//     so a transaction there begins with WATCH;
//   - SUBSCRIBE and the other Pub/Sub commands, sent with Send, open a
//     dedicated connection with Pub/Sub hooks, whose confirmations,
//     messages and PONGs Receive returns as redigo would (luatoken's
//     WithNotify needs this). On a cluster it is a connection to one of the
//     nodes, which is enough for PUBLISH and SUBSCRIBE.
//
// Replies come back in redigo's types. A status reply and a bulk string are
// both strings to rueidis; the command tells which redigo would have
// returned: a status (a string) for SET, MULTI, WATCH, PING and the other
// commands whose reply is a status, a bulk string (a []byte) otherwise.
// RESP3 replies are turned into their RESP2 form: a map into an array of
// keys and values, a double into its bulk string, a boolean into 1 or 0.
package rueidispool

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/internal/redigoconn"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/rueidis"
)

// Pool is a strategy.Pool on a rueidis client. It is safe for concurrent use
// and holds nothing of its own: closing the client is up to its owner.
type Pool struct {
	b backend
}

var _ strategy.Pool = (*Pool)(nil)

// New returns a Pool on c, which must not be nil.
func New(c rueidis.Client) *Pool {
	p := &Pool{b: backend{c: c}}
	if c != nil {
		p.b.cluster = c.Mode() == rueidis.ClientModeCluster
	}
	return p
}

var errNilClient = errors.New("rueidispool: nil client")

// GetContext returns a connection over the client. It fails only when ctx
// is done already, or the client is nil.
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
func (p *Pool) Client() rueidis.Client { return p.b.c }

type backend struct {
	c       rueidis.Client
	cluster bool // mark keys, which route commands
}

func (b *backend) Do(ctx context.Context, cmd *redigoconn.Cmd) (any, error) {
	return reply(b.c.Do(ctx, build(b.c.B(), cmd, b.cluster)), cmd)
}

func (b *backend) DoMulti(ctx context.Context, cmds []*redigoconn.Cmd) []redigoconn.Result {
	return doMulti(ctx, b.c, cmds, b.cluster)
}

var errNoKey = errors.New("rueidispool: on a cluster, a transaction starts with a command that names a key (WATCH), which chooses its node")

func (b *backend) Pin(_ context.Context, key string) (redigoconn.Pinned, error) {
	if b.cluster && key == "" {
		return nil, errNoKey
	}
	dc, cancel := b.c.Dedicate()
	return pinned{dc, cancel, b.cluster}, nil
}

func (b *backend) PubSub(ctx context.Context, first *redigoconn.Cmd) (redigoconn.PubSub, error) {
	c := b.c
	if c.Mode() == rueidis.ClientModeCluster {
		// A SUBSCRIBE has no key to route it: any node hears every
		// PUBLISH of the cluster.
		for _, n := range c.Nodes() {
			c = n
			break
		}
	}
	dc, cancel := c.Dedicate()
	p := &pubSub{dc: dc, cancel: cancel, changed: make(chan struct{})}
	errs := dc.SetPubSubHooks(rueidis.PubSubHooks{OnMessage: p.onMessage, OnSubscription: p.onSubscription})
	go p.watch(errs)
	if err := p.Send(ctx, first); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// pinned is a dedicated connection.
type pinned struct {
	dc      rueidis.DedicatedClient
	cancel  func()
	cluster bool
}

func (p pinned) Do(ctx context.Context, cmd *redigoconn.Cmd) (v any, err error) {
	defer recovered(&err)
	return reply(p.dc.Do(ctx, build(p.dc.B(), cmd, p.cluster)), cmd)
}

func (p pinned) DoMulti(ctx context.Context, cmds []*redigoconn.Cmd) (rs []redigoconn.Result) {
	var err error
	defer func() {
		if recovered(&err); err != nil {
			rs = make([]redigoconn.Result, len(cmds))
			for i := range rs {
				rs[i].Err = err
			}
		}
	}()
	return doMulti(ctx, p.dc, cmds, p.cluster)
}

// recovered turns a panic of a dedicated cluster client (a command for
// another slot than the first one's) into an error.
func recovered(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("rueidispool: %v", r)
	}
}

func (p pinned) Close() error {
	p.cancel()
	return nil
}

func doMulti(ctx context.Context, c rueidis.CommandClient, cmds []*redigoconn.Cmd, cluster bool) []redigoconn.Result {
	cs := make(rueidis.Commands, len(cmds))
	for i, cmd := range cmds {
		cs[i] = build(c.B(), cmd, cluster)
	}
	res := c.DoMulti(ctx, cs...)
	rs := make([]redigoconn.Result, len(cmds))
	for i, r := range res {
		rs[i].Reply, rs[i].Err = reply(r, cmds[i])
	}
	return rs
}

// build makes cmd a rueidis command. On a cluster its key is marked, to
// route it. Elsewhere it is not: a keyed command goes to a connection drawn
// at random among the client's pipelined ones (PipelineMultiplex), a
// command without a key always to the first, so all the pool's commands
// share one connection and its round trips.
func build(b rueidis.Builder, cmd *redigoconn.Cmd, cluster bool) rueidis.Completed {
	var buf [8]string
	args := buf[:0]
	for _, a := range cmd.Args[1:] {
		args = append(args, redigoconn.ArgString(a))
	}
	name := cmd.Name()
	upper := strings.ToUpper(name)
	a := b.Arbitrary(name)
	if k := keyAt(upper, args); cluster && k >= 0 {
		a = a.Args(args[:k]...).Keys(args[k]).Args(args[k+1:]...)
	} else {
		a = a.Args(args...)
	}
	if blocking(upper, args) {
		return a.Blocking()
	}
	return a.Build()
}

// keyAt returns the index in args of the key that routes the command, or
// -1 for a command without one. It is the first argument, but for the
// commands that name no key and for scripts, whose keys follow their count.
// A wrong guess on a cluster costs a redirection, which rueidis follows.
func keyAt(upper string, args []string) int {
	switch upper {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
		if len(args) > 2 && args[1] != "0" {
			return 2
		}
		return -1
	case "PING", "ECHO", "PUBLISH", "SCRIPT", "INFO", "CLIENT", "CONFIG", "CLUSTER",
		"DBSIZE", "FLUSHDB", "FLUSHALL", "MULTI", "EXEC", "DISCARD", "UNWATCH",
		"SELECT", "AUTH", "HELLO", "TIME", "COMMAND", "FUNCTION", "WAIT", "WAITAOF",
		"RANDOMKEY", "LASTSAVE", "ROLE", "SAVE", "BGSAVE", "BGREWRITEAOF", "QUIT",
		"RESET", "READONLY", "READWRITE", "ASKING", "LATENCY", "SLOWLOG", "DEBUG",
		"MEMORY", "OBJECT", "ACL", "SWAPDB", "SHUTDOWN", "REPLICAOF", "SLAVEOF",
		"KEYS", "SCAN", "PUBSUB", "MODULE", "FAILOVER", "LOLWUT":
		return -1
	}
	if len(args) == 0 {
		return -1
	}
	return 0
}

// blocking reports whether the server may hold the command's reply: such a
// command must not sit on the pipelined connection, ahead of the others.
func blocking(upper string, args []string) bool {
	switch upper {
	case "BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP", "WAIT", "WAITAOF":
		return true
	case "XREAD", "XREADGROUP":
		for _, a := range args {
			if strings.EqualFold(a, "BLOCK") {
				return true
			}
		}
	}
	return false
}

// Common status replies, boxed once.
var (
	replyOK     any = "OK"
	replyQueued any = "QUEUED"
	replyPong   any = "PONG"
)

// reply returns the reply of r in redigo's types.
func reply(r rueidis.RedisResult, cmd *redigoconn.Cmd) (any, error) {
	if err := r.NonRedisError(); err != nil {
		return nil, err
	}
	m, err := r.ToMessage()
	if err != nil {
		if rueidis.IsRedisNil(err) {
			return nil, nil
		}
		return nil, errorReply(&m)
	}
	return value(&m, cmd.Kind, cmd), nil
}

// errorReply returns an error reply as a redis.Error with the server's
// text: RedisError.Error drops an "ERR " prefix, ToString keeps it.
func errorReply(m *rueidis.RedisMessage) redigo.Error {
	s, _ := m.ToString()
	return redigo.Error(s)
}

// value converts a message into redigo's type for a reply of kind k; cmd
// types the elements of an array reply (nil below the top).
func value(m *rueidis.RedisMessage, k redigoconn.Kind, cmd *redigoconn.Cmd) any {
	switch {
	case m.IsNil():
		return nil
	case m.IsInt64():
		n, _ := m.AsInt64()
		return n
	case m.IsString():
		s, _ := m.ToString()
		if k == redigoconn.Status {
			switch s {
			case "OK":
				return replyOK
			case "QUEUED":
				return replyQueued
			case "PONG":
				return replyPong
			}
			return s
		}
		return []byte(s)
	case m.IsArray():
		vs, _ := m.ToArray()
		out := make([]any, len(vs))
		for i := range vs {
			ek := redigoconn.Bulk
			if cmd != nil {
				ek = cmd.Elem(i)
			}
			out[i] = value(&vs[i], ek, nil)
		}
		return out
	case m.IsMap():
		mm, _ := m.AsMap()
		out := make([]any, 0, 2*len(mm))
		for mk, mv := range mm {
			out = append(out, []byte(mk), value(&mv, redigoconn.Bulk, nil))
		}
		return out
	case m.IsFloat64():
		f, _ := m.AsFloat64()
		return []byte(strconv.FormatFloat(f, 'g', -1, 64))
	case m.IsBool():
		if b, _ := m.AsBool(); b {
			return int64(1)
		}
		return int64(0)
	}
	if err := m.Error(); err != nil {
		return errorReply(m)
	}
	v, err := m.ToAny() // a verbatim string, a big number
	if s, ok := v.(string); ok && err == nil {
		return []byte(s)
	}
	return v
}

// pubSub is a dedicated connection with Pub/Sub hooks: the hooks queue what
// arrives, Receive takes it from the queue.
type pubSub struct {
	dc     rueidis.DedicatedClient
	cancel func()

	mu      sync.Mutex
	queue   []any
	err     error         // the connection ended
	changed chan struct{} // closed and replaced when queue or err changes
}

var errClosed = errors.New("rueidispool: Pub/Sub connection closed")

func (p *pubSub) push(v any, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		if p.err == nil {
			p.err = err
		}
	} else {
		p.queue = append(p.queue, v)
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *pubSub) onMessage(m rueidis.PubSubMessage) {
	if m.Pattern != "" {
		p.push([]any{[]byte("pmessage"), []byte(m.Pattern), []byte(m.Channel), []byte(m.Message)}, nil)
		return
	}
	p.push([]any{[]byte("message"), []byte(m.Channel), []byte(m.Message)}, nil)
}

func (p *pubSub) onSubscription(s rueidis.PubSubSubscription) {
	p.push([]any{[]byte(s.Kind), []byte(s.Channel), s.Count}, nil)
}

// watch waits for the connection to end.
func (p *pubSub) watch(errs <-chan error) {
	err, ok := <-errs
	if !ok || err == nil {
		err = errClosed
	}
	p.push(nil, err)
}

func (p *pubSub) Send(ctx context.Context, cmd *redigoconn.Cmd) error {
	args := make([]string, len(cmd.Args)-1)
	for i, a := range cmd.Args[1:] {
		args[i] = redigoconn.ArgString(a)
	}
	b := p.dc.B()
	var c rueidis.Completed
	switch name := cmd.Name(); {
	case strings.EqualFold(name, "SUBSCRIBE"):
		c = b.Subscribe().Channel(args...).Build()
	case strings.EqualFold(name, "UNSUBSCRIBE"):
		c = b.Unsubscribe().Channel(args...).Build()
	case strings.EqualFold(name, "PSUBSCRIBE"):
		c = b.Psubscribe().Pattern(args...).Build()
	case strings.EqualFold(name, "PUNSUBSCRIBE"):
		c = b.Punsubscribe().Pattern(args...).Build()
	default: // PING
		payload, ping := "", b.Ping().Build()
		if len(args) > 0 {
			payload, ping = args[0], b.Ping().Message(args[0]).Build()
		}
		if err := p.dc.Do(ctx, ping).Error(); err != nil {
			return err
		}
		p.push([]any{[]byte("pong"), []byte(payload)}, nil)
		return nil
	}
	return p.dc.Do(ctx, c).Error()
}

func (p *pubSub) Receive(ctx context.Context) (any, error) {
	for {
		p.mu.Lock()
		if len(p.queue) > 0 {
			v := p.queue[0]
			p.queue[0] = nil
			p.queue = p.queue[1:]
			p.mu.Unlock()
			return v, nil
		}
		if p.err != nil {
			err := p.err
			p.mu.Unlock()
			return nil, err
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (p *pubSub) Close() error {
	p.push(nil, errClosed)
	p.dc.Close()
	p.cancel()
	return nil
}
