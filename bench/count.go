package bench

import (
	"context"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// A probe is closed by the first reply to a command sent under a context
// that carries it. The contended figure uses it to tell when a goroutine that
// has asked for the lock has heard back from Redis at least once, and so
// waits in its waiting mode rather than about to make its first attempt.
type probe struct {
	once sync.Once
	done chan struct{}
}

func newProbe() *probe { return &probe{done: make(chan struct{})} }

func (p *probe) fire() {
	if p != nil {
		p.once.Do(func() { close(p.done) })
	}
}

type probeKey struct{}

func withProbe(ctx context.Context, p *probe) context.Context {
	return context.WithValue(ctx, probeKey{}, p)
}

func probeFrom(ctx context.Context) *probe {
	p, _ := ctx.Value(probeKey{}).(*probe)
	return p
}

// byName counts commands by name (upper case). The zero value is not
// usable; a nil *byName counts nothing.
type byName struct {
	mu sync.Mutex
	n  map[string]int64
}

func newByName() *byName { return &byName{n: map[string]int64{}} }

func (b *byName) add(cmd string, n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.n[strings.ToUpper(cmd)] += n
	b.mu.Unlock()
}

// take returns the counts so far and starts again from zero.
func (b *byName) take() map[string]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := maps.Clone(b.n)
	clear(b.n)
	return n
}

// tap counts commands: into sent, into the counter cur points to, and by
// name into names, each when set.
type tap struct {
	sent  *atomic.Int64
	cur   *atomic.Pointer[atomic.Int64]
	names *byName
}

func (t tap) count(cmd string) {
	if cmd == "" {
		return
	}
	if t.sent != nil {
		t.sent.Add(1)
	}
	if t.cur != nil {
		if c := t.cur.Load(); c != nil {
			c.Add(1)
		}
	}
	t.names.add(cmd, 1)
}

// tapPool is a redigo pool whose connections count the commands sent
// through them and fire the probe of the context they were taken under.
// None of this is used in the uncontended or parallel figures.
type tapPool struct {
	p RedigoPool
	t tap
}

func (p tapPool) Get() redis.Conn { return tapConn{Conn: p.p.Get(), t: p.t} }

func (p tapPool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := p.p.GetContext(ctx)
	if err != nil {
		return c, err
	}
	return tapConn{Conn: c, t: p.t, probe: probeFrom(ctx)}, nil
}

// tapConn counts Do and Send, whatever their flavour: each is one command
// written to the server.
type tapConn struct {
	redis.Conn
	t     tap
	probe *probe
}

func (c tapConn) Do(cmd string, args ...any) (any, error) {
	c.t.count(cmd)
	v, err := c.Conn.Do(cmd, args...)
	c.probe.fire()
	return v, err
}

func (c tapConn) Send(cmd string, args ...any) error {
	c.t.count(cmd)
	return c.Conn.Send(cmd, args...)
}

func (c tapConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	c.t.count(cmd)
	v, err := redis.DoContext(c.Conn, ctx, cmd, args...)
	c.probe.fire()
	probeFrom(ctx).fire()
	return v, err
}

func (c tapConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	c.t.count(cmd)
	v, err := redis.DoWithTimeout(c.Conn, d, cmd, args...)
	c.probe.fire()
	return v, err
}

func (c tapConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

func (c tapConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	return redis.ReceiveWithTimeout(c.Conn, d)
}

// tapHook does for a go-redis client what tapPool does for redigo.
type tapHook struct{ t tap }

func (tapHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h tapHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		h.t.count(cmd.Name())
		err := next(ctx, cmd)
		probeFrom(ctx).fire()
		return err
	}
}

func (h tapHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		for _, cmd := range cmds {
			h.t.count(cmd.Name())
		}
		err := next(ctx, cmds)
		probeFrom(ctx).fire()
		return err
	}
}

// tapRueidis does for a rueidis client what tapPool does for redigo, on
// the client and on the dedicated connections it hands out.
type tapRueidis struct {
	rueidis.Client
	t tap
}

func (c tapRueidis) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.t.count(cmd.Commands()[0]) // before Do, which recycles cmd
	r := c.Client.Do(ctx, cmd)
	probeFrom(ctx).fire()
	return r
}

func (c tapRueidis) DoMulti(ctx context.Context, multi ...rueidis.Completed) []rueidis.RedisResult {
	for _, cmd := range multi {
		c.t.count(cmd.Commands()[0])
	}
	rs := c.Client.DoMulti(ctx, multi...)
	probeFrom(ctx).fire()
	return rs
}

func (c tapRueidis) Dedicate() (rueidis.DedicatedClient, func()) {
	dc, cancel := c.Client.Dedicate()
	return tapDedicated{DedicatedClient: dc, t: c.t}, cancel
}

type tapDedicated struct {
	rueidis.DedicatedClient
	t tap
}

func (c tapDedicated) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.t.count(cmd.Commands()[0])
	r := c.DedicatedClient.Do(ctx, cmd)
	probeFrom(ctx).fire()
	return r
}

func (c tapDedicated) DoMulti(ctx context.Context, multi ...rueidis.Completed) []rueidis.RedisResult {
	for _, cmd := range multi {
		c.t.count(cmd.Commands()[0])
	}
	rs := c.DedicatedClient.DoMulti(ctx, multi...)
	probeFrom(ctx).fire()
	return rs
}
