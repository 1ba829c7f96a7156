// Package catalog lists locklab's strategies with what the conformance suite
// is expected to find for each. The declared verdicts of every column, the
// strategies here and those declared elsewhere (the peers, redis-py), live
// in one grid, verdicts.txt (GridFile), shaped like lockcheck's matrix:
// the strategies' tests, lockcheck, peercheck, the recipes and the docs
// read it, and -update rewrites it from a real run.
package catalog

import (
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/delsetnx"
	"github.com/locklab/locklab/strategy/delsetnxcheck"
	"github.com/locklab/locklab/strategy/fixedpassword"
	"github.com/locklab/locklab/strategy/getset"
	"github.com/locklab/locklab/strategy/getsetcompare"
	"github.com/locklab/locklab/strategy/getsetexpire"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/locklab/locklab/strategy/multiget"
	"github.com/locklab/locklab/strategy/redlock"
	"github.com/locklab/locklab/strategy/setnxdel"
	"github.com/locklab/locklab/strategy/setnxexpire"
	"github.com/locklab/locklab/strategy/setnxpx"
	"github.com/locklab/locklab/strategy/tokengetdel"
	"github.com/locklab/locklab/strategy/watchdel"
)

// Entry is one strategy as the suite sees it.
type Entry struct {
	// Name is the strategy's package name.
	Name string
	// Sources names the documents the recipe comes from.
	Sources string
	// New builds the strategy for one simulated client.
	New locktest.Factory
	// Expect is the declared verdict of every property: the entry's
	// column of the grid in GridFile.
	Expect locktest.Expect
	// Missing are the properties the entry's column of the grid declares
	// nothing for yet (see Undeclared): -update writes them.
	Missing []locktest.Property
	// Masters and RestartDelay go to locktest.Config: how many masters a
	// lock over several spans, and how long a restarted one stays down.
	Masters      int
	RestartDelay time.Duration
	// Timing is the column's time scale, where it is not the suite's
	// default: its zero fields leave cfg's. A lock that counts TTLs in
	// whole seconds declares Timing{Granularity: time.Second} here,
	// unless it announces it itself (strategy.Granular, an -exec
	// program's ready line).
	Timing locktest.Timing
}

// Config returns cfg with the entry's factory, masters and restart delay,
// and the fields of its Timing that are set.
func (e Entry) Config(cfg locktest.Config) locktest.Config {
	cfg.New, cfg.Masters, cfg.RestartDelay = e.New, e.Masters, e.RestartDelay
	set := func(d *time.Duration, v time.Duration) {
		if v > 0 {
			*d = v
		}
	}
	set(&cfg.Timing.Granularity, e.Timing.Granularity)
	set(&cfg.Timing.Short, e.Timing.Short)
	set(&cfg.Timing.Long, e.Timing.Long)
	set(&cfg.Timing.Slack, e.Timing.Slack)
	set(&cfg.Timing.Poll, e.Timing.Poll)
	return cfg
}

// Strategies returns the catalog's columns: the strategies on one Redis,
// from the most naive to the one to use, getsetcompare twice (as document
// 004 writes it, then as document 003 does), luatoken with the two fixes
// for an overrunning holder, auto-renewal and fencing tokens; then Redlock
// over five masters, with a crashed master restarted at once and, as
// antirez advises, only after the longest TTL. Each one's Expect is its
// column of the declared grid (GridFile).
func Strategies() []Entry {
	es := strategies()
	for i := range es {
		es[i] = Declare(es[i])
	}
	return es
}

// strategies are the columns without their declared verdicts, which the
// grid's columns are checked against.
func strategies() []Entry {
	return []Entry{
		{
			Name:    "setnxdel",
			Sources: "004 方式一/二, 003 简易锁",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxdel.New(c.Pool)
			},
		},
		{
			Name:    "setnxexpire",
			Sources: "003 方案1, 002",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxexpire.New(c.Pool)
			},
		},
		{
			Name:    "multiget",
			Sources: "002 (as published)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return multiget.New(c.Pool)
			},
		},
		{
			Name:    "getset",
			Sources: "001, 000 (its prose)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getset.New(c.Pool, getset.WithClock(c.Clock))
			},
		},
		{
			Name:    "getsetexpire",
			Sources: "000 【代码实现】",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetexpire.New(c.Pool, getsetexpire.WithClock(c.Clock))
			},
		},
		{
			Name:    "getsetcompare",
			Sources: "004 改进方式四",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetcompare.New(c.Pool, getsetcompare.WithClock(c.Clock))
			},
		},
		{
			Name:    "getsetcompare-003",
			Sources: "003 方案2",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetcompare.New(c.Pool, getsetcompare.WithClock(c.Clock), getsetcompare.Document003())
			},
		},
		{
			Name:    "delsetnx",
			Sources: "000 (its P1/P2/P3 walk-through)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return delsetnx.New(c.Pool, delsetnx.WithClock(c.Clock))
			},
		},
		{
			Name:    "delsetnxcheck",
			Sources: "004 方式三",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return delsetnxcheck.New(c.Pool, delsetnxcheck.WithClock(c.Clock))
			},
		},
		{
			Name:    "setnxpx",
			Sources: "003, 004 方式五",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxpx.New(c.Pool)
			},
		},
		{
			Name:    "fixedpassword",
			Sources: "004 方式六 (as its code writes it)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return fixedpassword.New(c.Pool)
			},
		},
		{
			Name:    "tokengetdel",
			Sources: "004 (the GET then DEL between 方式五 and 方式六)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return tokengetdel.New(c.Pool)
			},
		},
		{
			Name:    "watchdel",
			Sources: "002 (as meant)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return watchdel.New(c.Pool)
			},
		},
		{
			Name:    "luatoken",
			Sources: "004 方式六, 002",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return luatoken.New(c.Pool)
			},
		},
		{
			Name:    "luatoken-renew-fence",
			Sources: "luatoken with WithAutoRenew and WithFencing",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				// A lease margin that leaves the suite's detector time to
				// see the holder stop before the key can expire.
				return luatoken.New(c.Pool, luatoken.WithAutoRenew(0), luatoken.WithLeaseMargin(20*time.Millisecond), luatoken.WithFencing())
			},
		},
		{
			Name:    "redlock",
			Sources: "antirez's Redlock over five independent masters",
			New:     newRedlock,
			Masters: 5,
		},
		{
			Name:    "redlock-delayed-restart",
			Sources: "Redlock, a crashed master kept down for longer than the longest TTL",
			New:     newRedlock,
			Masters: 5,
			// Longer than the suite's longest TTL, Timing.Long (5s).
			RestartDelay: 6 * time.Second,
		},
	}
}

// newRedlock is Redlock over the masters of c (one on a single Redis),
// reading c's clock.
func newRedlock(c locktest.Client) (strategy.Strategy, error) {
	return redlock.New(c.Pools, redlock.WithClock(c.Clock))
}

// Lookup returns the entry named name.
func Lookup(name string) (Entry, bool) {
	for _, e := range Strategies() {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}
