package locktest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// dialer returns how to open a connection to Redis: Dial or a TCP dial
// of Addr, then TLS and the login when the configuration asks for them.
func (cfg Config) dialer() func(ctx context.Context) (net.Conn, error) {
	dial := cfg.Dial
	if dial == nil {
		dial = harness.DialTCP(cfg.Addr)
	}
	if cfg.TLS == nil && cfg.Password == "" && cfg.DB == 0 {
		return dial
	}
	tlsConf := cfg.TLS
	if tlsConf != nil && tlsConf.ServerName == "" && !tlsConf.InsecureSkipVerify {
		tlsConf = tlsConf.Clone()
		tlsConf.ServerName, _, _ = net.SplitHostPort(cfg.Addr)
	}
	return func(ctx context.Context) (net.Conn, error) {
		nc, err := dial(ctx)
		if err != nil {
			return nil, err
		}
		if tlsConf != nil {
			tc := tls.Client(nc, tlsConf)
			if err := tc.HandshakeContext(ctx); err != nil {
				nc.Close()
				return nil, fmt.Errorf("TLS with %s: %w", cfg.Addr, err)
			}
			nc = tc
		}
		if err := cfg.login(ctx, nc); err != nil {
			nc.Close()
			return nil, err
		}
		return nc, nil
	}
}

// login logs a fresh connection in and selects the database, in RESP2, so
// that whatever crosses it next finds it as a new connection to a server
// without a password would be.
func (cfg Config) login(ctx context.Context, nc net.Conn) error {
	rc := redis.NewConn(nc, 10*time.Second, 10*time.Second)
	if cfg.Password != "" {
		args := []any{cfg.Password}
		if cfg.Username != "" {
			args = []any{cfg.Username, cfg.Password}
		}
		if _, err := redis.DoContext(rc, ctx, "AUTH", args...); err != nil {
			if cfg.Username == "" {
				return fmt.Errorf("AUTH as the default user: %w", err)
			}
			return fmt.Errorf("AUTH as user %s: %w", cfg.Username, err)
		}
	}
	if cfg.DB != 0 {
		if _, err := redis.DoContext(rc, ctx, "SELECT", cfg.DB); err != nil {
			return fmt.Errorf("SELECT %d: %w", cfg.DB, err)
		}
	}
	return nc.SetDeadline(time.Time{}) // the ones redigo set for the login
}

// pool returns a pool of the suite's own connections to Redis, for what
// it reads and writes outside every client (a stale lock's copy, a PTTL).
func (cfg Config) pool() *redis.Pool {
	dial := cfg.dialer()
	return &redis.Pool{
		MaxIdle: 4,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			nc, err := dial(ctx)
			if err != nil {
				return nil, err
			}
			c := redis.NewConn(nc, 10*time.Second, 10*time.Second)
			if cfg.perms != nil {
				return permConn{c.(connWithAll), cfg.perms}, nil
			}
			return c, nil
		},
	}
}

// checkPool makes sure the server answers on a connection of p.
func checkPool(ctx context.Context, p strategy.Pool) error {
	// A pooled connection the server cut since its last use fails its
	// first command; closed with an error, it leaves the pool, and the
	// next one is tried.
	const attempts = 3
	var err error
	for range attempts {
		var failed *connFailed
		if err = pingPool(ctx, p); !errors.As(err, &failed) {
			break
		}
	}
	return err
}

// connFailed is the error of a PING on a connection the pool gave.
type connFailed struct{ err error }

func (e *connFailed) Error() string { return e.err.Error() }

func (e *connFailed) Unwrap() error { return e.err }

// pingPool PINGs on one connection of p.
func pingPool(ctx context.Context, p strategy.Pool) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return fmt.Errorf("no connection to Redis: %w", err)
	}
	defer c.Close()
	if _, err := redis.DoContext(c, ctx, "PING"); err != nil {
		return fmt.Errorf("PING: %w", &connFailed{err})
	}
	return nil
}

// connWithAll is what a redigo connection implements.
type connWithAll interface {
	redis.Conn
	redis.ConnWithContext
	redis.ConnWithTimeout
}

// permConn is a connection of the suite's own that records the NOPERMs
// its commands meet.
type permConn struct {
	connWithAll
	perms *sim.Permissions
}

func (c permConn) seen(cmd string, args []any, reply any, err error) (any, error) {
	var re redis.Error
	if errors.As(err, &re) {
		named := []string{cmd}
		if len(args) > 0 {
			named = append(named, fmt.Sprint(args[0]))
		}
		c.perms.Saw(named, string(re))
	}
	return reply, err
}

func (c permConn) Do(cmd string, args ...any) (any, error) {
	reply, err := c.connWithAll.Do(cmd, args...)
	return c.seen(cmd, args, reply, err)
}

func (c permConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	reply, err := c.connWithAll.DoContext(ctx, cmd, args...)
	return c.seen(cmd, args, reply, err)
}

func (c permConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	reply, err := c.connWithAll.DoWithTimeout(d, cmd, args...)
	return c.seen(cmd, args, reply, err)
}
