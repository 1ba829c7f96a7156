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

// tapPool is a redigo pool whose connections count the commands sent
// through them (in total when sent is set, by name when names is) and fire
// the probe of the context they were taken under. None of this is used in
// the uncontended or parallel figures.
type tapPool struct {
	p     RedigoPool
	sent  *atomic.Int64
	names *byName
}

func (p tapPool) Get() redis.Conn { return tapConn{Conn: p.p.Get(), sent: p.sent, names: p.names} }

func (p tapPool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := p.p.GetContext(ctx)
	if err != nil {
		return c, err
	}
	return tapConn{Conn: c, sent: p.sent, names: p.names, probe: probeFrom(ctx)}, nil
}

// tapConn counts Do and Send, whatever their flavour: each is one command
// written to the server.
type tapConn struct {
	redis.Conn
	sent  *atomic.Int64
	names *byName
	probe *probe
}

func (c tapConn) count(cmd string) {
	if cmd == "" {
		return
	}
	if c.sent != nil {
		c.sent.Add(1)
	}
	c.names.add(cmd, 1)
}

func (c tapConn) Do(cmd string, args ...any) (any, error) {
	c.count(cmd)
	v, err := c.Conn.Do(cmd, args...)
	c.probe.fire()
	return v, err
}

func (c tapConn) Send(cmd string, args ...any) error {
	c.count(cmd)
	return c.Conn.Send(cmd, args...)
}

func (c tapConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	c.count(cmd)
	v, err := redis.DoContext(c.Conn, ctx, cmd, args...)
	c.probe.fire()
	probeFrom(ctx).fire()
	return v, err
}

func (c tapConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	c.count(cmd)
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

// tapHook does for a go-redis client what tapPool does for redigo. It
// counts into sent, into the counter cur points to, and by name into names,
// each when set.
type tapHook struct {
	sent  *atomic.Int64
	cur   *atomic.Pointer[atomic.Int64]
	names *byName
}

func (h tapHook) count(cmds ...goredis.Cmder) {
	n := int64(len(cmds))
	if h.sent != nil {
		h.sent.Add(n)
	}
	if h.cur != nil {
		if c := h.cur.Load(); c != nil {
			c.Add(n)
		}
	}
	for _, c := range cmds {
		h.names.add(c.Name(), 1)
	}
}

func (tapHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h tapHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		h.count(cmd)
		err := next(ctx, cmd)
		probeFrom(ctx).fire()
		return err
	}
}

func (h tapHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		h.count(cmds...)
		err := next(ctx, cmds)
		probeFrom(ctx).fire()
		return err
	}
}
