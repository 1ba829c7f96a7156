package locktest_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxpx"
	"github.com/rs/xid"
)

// Check runs one property on a strategy, here SET NX PX with a DEL release,
// and returns its verdict with the counterexample of a break. Verdicts are
// the same on every run; only the times in a timeline change.
func ExampleCheck() {
	ctx := context.Background()
	// A real Redis: REDIS_ADDR, else Docker, else a redis-server process.
	srv, err := redistest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	// The suite builds the strategy once per simulated client (A, B, C...).
	newLock := func(c locktest.Client) (strategy.Strategy, error) {
		return setnxpx.New(c.Pool)
	}
	cfg := locktest.Config{Addr: srv.Addr, New: newLock, Key: "example:" + xid.New().String()}

	for _, p := range []locktest.Property{locktest.CrashRecovery, locktest.DoubleRelease} {
		res := locktest.Check(ctx, cfg, p)
		fmt.Printf("%s: %s\n", res.Property, res.Verdict)
		// The counterexample: every command each client sent, and its reply,
		// each a list of typed values (the key, a time, a client's token)
		// that String writes as text.
		text := func(args []history.Arg, sep string) string {
			var parts []string
			for _, a := range args {
				parts = append(parts, a.String())
			}
			return strings.Join(parts, sep)
		}
		for _, e := range res.Timeline {
			if e.Kind == history.EvCommand {
				fmt.Printf("  %s: %s -> %s\n", e.Client, text(e.Command, " "), text(e.Reply, ""))
			}
		}
	}
	// Output:
	// crash-recovery: holds
	// double-release: breaks
	//   A: SET K 1 NX PX 5000 -> OK
	//   A: DEL K -> 1
	//   B: SET K 1 NX PX 5000 -> OK
	//   A: DEL K -> 1
	//   C: SET K 1 NX PX 5000 -> OK
}

// A factory for a client that is not a redigo pool dials Client.Addr, the
// client's own proxy to Redis, and hands what it opened to Client.Cleanup.
// Here the lock is setnxpx over a single connection of its own; a factory
// for go-redis, rueidis or a program in another language does the same
// with its client (see the peers module and package locktest/process).
func ExampleClient() {
	ctx := context.Background()
	srv, err := redistest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	newLock := func(c locktest.Client) (strategy.Strategy, error) {
		conn, err := redis.DialContext(ctx, "tcp", c.Addr, redis.DialPassword(c.Password))
		if err != nil {
			return nil, err
		}
		c.Cleanup(func() { conn.Close() })
		return setnxpx.New(oneConn{conn})
	}
	cfg := locktest.Config{Addr: srv.Addr, New: newLock, Key: "example:" + xid.New().String()}
	res := locktest.Check(ctx, cfg, locktest.CrashRecovery)
	fmt.Println(res.Property, res.Verdict)
	// Output: crash-recovery holds
}

// oneConn is a strategy.Pool that hands out one shared connection; Close
// leaves it open.
type oneConn struct{ c redis.Conn }

func (p oneConn) GetContext(context.Context) (redis.Conn, error) { return noClose{p.c}, nil }

type noClose struct{ redis.Conn }

func (noClose) Close() error { return nil }

// ExpectFrom turns the results of a run into the Expect that declares
// them; its Literal, with a note per break, is what Run prints at the end
// of a run whose verdicts were not the declared ones, ready to paste.
func ExampleExpectFrom() {
	results := []locktest.Result{
		{Property: locktest.CrashMidAcquire, Verdict: locktest.NotApplicable},
		{Property: locktest.SafeRelease, Verdict: locktest.Breaks},
		{Property: locktest.DoubleRelease, Verdict: locktest.Holds},
	}
	lenient := locktest.ExpectFrom(results, false)
	fmt.Println(lenient.Literal(map[locktest.Property]string{
		locktest.SafeRelease: "counterexample in TestConformance/safe-release",
	}))
	fmt.Printf("%#v\n", locktest.ExpectFrom(results, true))
	// Output:
	// locktest.Expect{
	// 	Breaks: []locktest.Property{
	// 		// a release sent after the holder's TTL ran out freed the next holder's lock; counterexample in TestConformance/safe-release
	// 		locktest.SafeRelease,
	// 	},
	// }
	// locktest.Expect{
	// 	Breaks: []locktest.Property{
	// 		// a release sent after the holder's TTL ran out freed the next holder's lock
	// 		locktest.SafeRelease,
	// 	},
	// 	NotApplicable: []locktest.Property{locktest.CrashMidAcquire},
	// 	Strict:        true,
	// }
}

// Mismatch is how Run judges a verdict: without Strict, n/a passes where
// the property is expected to hold.
func ExampleExpect_Mismatch() {
	na := locktest.Result{Property: locktest.ClockSkew, Verdict: locktest.NotApplicable,
		Message: locktest.Message{ID: "clock.n/a"}} // "the strategy never reads the client's clock"
	fmt.Printf("lenient: %q\n", locktest.Expect{}.Mismatch(na))
	fmt.Printf("strict: %q\n", locktest.Expect{Strict: true}.Mismatch(na))
	fmt.Printf("strict, declared: %q\n", locktest.Expect{Strict: true, NotApplicable: []locktest.Property{locktest.ClockSkew}}.Mismatch(na))
	// Output:
	// lenient: ""
	// strict: "clock-skew: verdict = n/a, wanted holds: the strategy never reads the client's clock"
	// strict, declared: ""
}
