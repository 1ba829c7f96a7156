package recipe_test

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy/internal/recipe"
	"github.com/rs/xid"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

var echo = redis.NewScript(1, `return ARGV[1]`)

// DoBounded and EvalBounded send their command under every kind of
// context, and send nothing once the context is done.
func TestBounded(t *testing.T) {
	p := redistest.Pool(t)
	key := redistest.Key(t)
	withDeadline, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	cancellable, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{{"background", context.Background()}, {"deadline", withDeadline}, {"cancellable", cancellable}} {
		name, ctx := tc.name, tc.ctx
		c, err := p.GetContext(ctx)
		require.NoError(t, err)
		_, err = recipe.DoBounded(ctx, c, "SET", key, name)
		require.NoError(t, err, name)
		got, err := redis.String(recipe.EvalBounded(ctx, c, echo, key, name))
		require.NoError(t, err, name)
		require.Equal(t, name, got)
		require.NoError(t, c.Close())
	}

	done, cancel3 := context.WithTimeout(context.Background(), time.Hour)
	cancel3()
	c, err := p.GetContext(context.Background())
	require.NoError(t, err)
	defer c.Close()
	_, err = recipe.DoBounded(done, c, "SET", key, "done")
	require.ErrorIs(t, err, context.Canceled)
	_, err = recipe.EvalBounded(done, c, echo, key, "done")
	require.ErrorIs(t, err, context.Canceled)
	got, err := redis.String(c.Do("GET", key))
	require.NoError(t, err)
	require.Equal(t, "cancellable", got, "a command was sent under a done context")
}

// A context that can be cancelled but has no deadline still interrupts a
// command that blocks: BLPOP on an empty list, with no server timeout,
// returns context.Canceled once the context is cancelled, and leaves the
// connection broken, so that its pool discards it. The test waits for the
// server to list the connection as blocked before it cancels, so the
// command is known to have been sent and to be waiting; the connections
// have no read timeout, so nothing but the cancellation can end the wait.
func TestCancelInterruptsBlockedCommand(t *testing.T) {
	srv := redistest.Shared(t)
	p := &redis.Pool{DialContext: func(ctx context.Context) (redis.Conn, error) {
		opts := []redis.DialOption{redis.DialUsername(srv.Login.Username), redis.DialPassword(srv.Login.Password), redis.DialDatabase(srv.Login.DB)}
		if srv.Login.TLS != nil {
			opts = append(opts, redis.DialUseTLS(true), redis.DialTLSConfig(srv.Login.TLS))
		}
		return redis.DialContext(ctx, "tcp", srv.Addr, opts...)
	}}
	defer p.Close()
	key := redistest.Key(t)
	for _, tc := range []struct {
		name string
		do   func(ctx context.Context, c redis.Conn) error
	}{
		{"Do", func(ctx context.Context, c redis.Conn) error {
			_, err := recipe.Do(ctx, c, "BLPOP", key, 0)
			return err
		}},
		{"DoBounded", func(ctx context.Context, c redis.Conn) error {
			_, err := recipe.DoBounded(ctx, c, "BLPOP", key, 0)
			return err
		}},
		{"Eval", func(ctx context.Context, c redis.Conn) error {
			// A script cannot block; the script's EVALSHA goes the same
			// way as Do's command, so BLPOP stands for it here too.
			_, err := recipe.Eval(ctx, c, echo, key, "x")
			if err != nil {
				return err
			}
			_, err = recipe.Do(ctx, c, "BLPOP", key, 0)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := p.GetContext(ctx)
			require.NoError(t, err)
			defer c.Close()
			name := "cancel-" + xid.New().String()
			_, err = c.Do("CLIENT", "SETNAME", name)
			require.NoError(t, err)

			done := make(chan error, 1)
			go func() { done <- tc.do(ctx, c) }()

			admin := p.Get()
			defer admin.Close()
			for !blocked(t, admin, name) {
				select {
				case err := <-done:
					t.Fatalf("returned before it was cancelled: %v", err)
				default:
					runtime.Gosched()
				}
			}
			cancel()
			select {
			case err := <-done:
				require.ErrorIs(t, err, context.Canceled)
			case <-time.After(time.Minute):
				// Only a failure waits this long: the command was not
				// interrupted.
				t.Fatal("the cancelled command is still blocked")
			}
			require.Error(t, c.Err(), "the interrupted connection is still usable")
		})
	}
}

// blocked reports whether the client called name is blocked in a command.
func blocked(t *testing.T, admin redis.Conn, name string) bool {
	list, err := redis.String(admin.Do("CLIENT", "LIST"))
	require.NoError(t, err)
	for line := range strings.Lines(list) {
		fields := strings.Fields(line)
		if slices.Contains(fields, "name="+name) && slices.Contains(fields, "cmd=blpop") {
			for _, f := range fields {
				if flags, ok := strings.CutPrefix(f, "flags="); ok && strings.Contains(flags, "b") {
					return true
				}
			}
		}
	}
	return false
}

// BenchmarkDo times one PING through recipe.Do on a pooled connection
// under each kind of context, and, for comparison, through redigo's
// DoContext under a context that can be cancelled: that path starts a
// goroutine per command, which recipe.Do no longer does.
func BenchmarkDo(b *testing.B) {
	p := redistest.Pool(b)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	withTimeout, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	for _, bc := range []struct {
		name string
		do   func(c redis.Conn) error
	}{
		{"Background", func(c redis.Conn) error {
			_, err := recipe.Do(context.Background(), c, "PING")
			return err
		}},
		{"WithCancel", func(c redis.Conn) error {
			_, err := recipe.Do(cancellable, c, "PING")
			return err
		}},
		{"WithTimeout", func(c redis.Conn) error {
			_, err := recipe.Do(withTimeout, c, "PING")
			return err
		}},
		{"WithTimeout/DoBounded", func(c redis.Conn) error {
			_, err := recipe.DoBounded(withTimeout, c, "PING")
			return err
		}},
		{"WithCancel/redigo-DoContext", func(c redis.Conn) error {
			_, err := redis.DoContext(c, cancellable, "PING")
			return err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := p.Get()
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.do(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
