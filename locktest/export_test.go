package locktest

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/explore"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/props"
)

// What the package's own tests and examples use of its internals.

var EmptyKeyTurn = emptyKeyTurn

const EmptyKeyTurnKey = emptyKeyTurnKey

func Mismatch(res Result, want Verdict) string { return mismatch(res, want) }

func FormatTimeline(tl []history.Event) string { return history.Format(tl) }

func ExpectFrom(results []Result, strict bool) Expect { return expectFrom(results, strict) }

func (e Expect) Literal(notes map[Property]string) string { return e.literal(notes) }

// Structural says whether a correct lock may be unable to stage p, and
// so find it n/a.
func Structural(p Property) bool { d, _ := props.Lookup(string(p)); return d.Structural }

// WrittenKeys returns the positions of the keys cmd writes, its words
// split on spaces.
func WrittenKeys(cmd string) []int {
	var args []history.Arg
	for _, w := range strings.Fields(cmd) {
		args = append(args, history.Arg{Kind: history.ArgText, Text: w})
	}
	return harness.WrittenKeys(strings.ToUpper(args[0].Text), args)
}

// WatchStalled watches pool's server for about ten probes, the suite
// stalled for pause once, after its first probe, and returns the
// disturbance seen, if any.
func WatchStalled(ctx context.Context, pool *redis.Pool, stall, pause time.Duration) error {
	var once sync.Once
	probes := 0
	m := watchPausing(ctx, pool, stall, func() {
		if probes++; probes == 2 {
			once.Do(func() { time.Sleep(pause) })
		}
	})
	time.Sleep(10*pingEvery + pause)
	return m.stop()
}

// ExploredRefresh says whether the explorer takes cfg's lock for one
// whose holds refresh.
func ExploredRefresh(ctx context.Context, cfg Config) (bool, error) {
	pool := cfg.pool()
	defer pool.Close()
	l, err := exploredLock(ctx, cfg, pool)
	return l.Refresh, err
}

// ExploredWriterIntent is the writer intent the explorer takes cfg's
// lock to keep.
func ExploredWriterIntent(ctx context.Context, cfg Config) (time.Duration, error) {
	pool := cfg.pool()
	defer pool.Close()
	l, err := exploredLock(ctx, cfg, pool)
	return l.WriterIntent, err
}

// ExploredCommands names the commands the explorer saw each operation of
// cfg's lock send: "acquire", "refresh", "release".
func ExploredCommands(ctx context.Context, cfg Config) (map[string][]string, error) {
	pool := cfg.pool()
	defer pool.Close()
	l, err := exploredLock(ctx, cfg, pool)
	out := map[string][]string{}
	for k, name := range map[explore.OpKind]string{explore.Acquire: "acquire", explore.Refresh: "refresh", explore.Release: "release"} {
		for _, c := range l.Commands[k] {
			out[name] = append(out[name], c.Name())
		}
	}
	return out, err
}
