// Package catalog lists locklab's strategies with what the conformance suite
// is expected to find for each: the single place that the strategies' tests,
// the lockcheck command and the docs read the declared verdicts from.
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
	// Expect is the declared verdict of every property.
	Expect locktest.Expect
	// Masters and RestartDelay go to locktest.Config: how many masters a
	// lock over several spans, and how long a restarted one stays down.
	Masters      int
	RestartDelay time.Duration
}

// Config returns cfg with the entry's factory, masters and restart delay.
func (e Entry) Config(cfg locktest.Config) locktest.Config {
	cfg.New, cfg.Masters, cfg.RestartDelay = e.New, e.Masters, e.RestartDelay
	return cfg
}

// Shorthands for the declarations below.
const (
	crashMid  = locktest.CrashMidAcquire
	stale     = locktest.StaleTakeoverRace
	skew      = locktest.ClockSkew
	safeRel   = locktest.SafeRelease
	doubleRel = locktest.DoubleRelease
	overrun   = locktest.HolderOverrun
	fenced    = locktest.FencedOverrun
	renewed   = locktest.RenewedOverrun

	crashMidRel = locktest.CrashMidRelease
	safeRefresh = locktest.SafeRefresh

	failover  = locktest.Failover
	amnesia   = locktest.RestartAmnesia
	clockJump = locktest.NodeClockJump
	minority  = locktest.MinorityDown
)

type props = []locktest.Property

// Strategies returns the seventeen columns: the strategies on one Redis,
// from the most naive to the one to use, getsetcompare twice (as document
// 004 writes it, then as document 003 does), luatoken with the two fixes
// for an overrunning holder, auto-renewal and fencing tokens; then Redlock
// over five masters, with a crashed master restarted at once and, as
// antirez advises, only after the longest TTL.
func Strategies() []Entry {
	return []Entry{
		{
			Name:    "setnxdel",
			Sources: "004 方式一/二, 003 简易锁",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxdel.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{locktest.CrashRecovery, doubleRel, failover, amnesia},
				NotApplicable: props{crashMid, crashMidRel, stale, skew, safeRel, safeRefresh, overrun, fenced, renewed, minority},
			},
		},
		{
			Name:    "setnxexpire",
			Sources: "003 方案1, 002",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxexpire.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{crashMid, safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia, clockJump},
				NotApplicable: props{crashMidRel, stale, skew, safeRefresh, minority},
			},
		},
		{
			Name:    "multiget",
			Sources: "002 (as published)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return multiget.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{locktest.ReleaseFrees, crashMid, overrun, fenced, renewed, failover, amnesia, clockJump},
				NotApplicable: props{locktest.Exclusion, stale, skew, doubleRel, safeRefresh, minority},
			},
		},
		{
			Name:    "getset",
			Sources: "001, 000 (its prose)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getset.New(c.Pool, getset.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{skew, safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia},
				NotApplicable: props{safeRefresh, minority},
			},
		},
		{
			Name:    "getsetexpire",
			Sources: "000 【代码实现】",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetexpire.New(c.Pool, getsetexpire.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{skew, safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia, clockJump},
				NotApplicable: props{stale, safeRefresh, minority},
			},
		},
		{
			Name:    "getsetcompare",
			Sources: "004 改进方式四",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetcompare.New(c.Pool, getsetcompare.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{skew, safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia},
				NotApplicable: props{crashMidRel, safeRefresh, minority},
			},
		},
		{
			Name:    "getsetcompare-003",
			Sources: "003 方案2",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetcompare.New(c.Pool, getsetcompare.WithClock(c.Clock), getsetcompare.Document003())
			},
			Expect: locktest.Expect{
				Breaks:        props{skew, safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia},
				NotApplicable: props{crashMidRel, safeRefresh, minority},
			},
		},
		{
			Name:    "delsetnx",
			Sources: "000 (its P1/P2/P3 walk-through)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return delsetnx.New(c.Pool, delsetnx.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{stale, skew, safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia},
				NotApplicable: props{safeRefresh, minority},
			},
		},
		{
			Name:    "delsetnxcheck",
			Sources: "004 方式三",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return delsetnxcheck.New(c.Pool, delsetnxcheck.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{locktest.Exclusion, stale, skew, safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia},
				NotApplicable: props{crashMidRel, safeRefresh, minority},
			},
		},
		{
			Name:    "setnxpx",
			Sources: "003, 004 方式五",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxpx.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia, clockJump},
				NotApplicable: props{crashMid, crashMidRel, stale, skew, safeRefresh, minority},
			},
		},
		{
			Name:    "fixedpassword",
			Sources: "004 方式六 (as its code writes it)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return fixedpassword.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{safeRel, doubleRel, overrun, fenced, renewed, failover, amnesia, clockJump},
				NotApplicable: props{crashMid, crashMidRel, stale, skew, safeRefresh, minority},
			},
		},
		{
			Name:    "tokengetdel",
			Sources: "004 (the GET then DEL between 方式五 and 方式六)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return tokengetdel.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{safeRel, overrun, fenced, renewed, failover, amnesia, clockJump},
				NotApplicable: props{crashMid, stale, skew, safeRefresh, minority},
			},
		},
		{
			Name:    "watchdel",
			Sources: "002 (as meant)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return watchdel.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{crashMid, overrun, fenced, renewed, failover, amnesia, clockJump},
				NotApplicable: props{stale, skew, safeRefresh, minority},
			},
		},
		{
			Name:    "luatoken",
			Sources: "004 方式六, 002",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return luatoken.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{overrun, fenced, renewed, failover, amnesia, clockJump},
				NotApplicable: props{crashMid, crashMidRel, stale, skew, minority},
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
			Expect: locktest.Expect{
				Breaks:        props{failover, amnesia, clockJump},
				NotApplicable: props{crashMid, crashMidRel, stale, skew, minority},
			},
		},
		{
			Name:    "redlock",
			Sources: "antirez's Redlock over five independent masters",
			New:     newRedlock,
			Masters: 5,
			Expect: locktest.Expect{
				Breaks:        props{overrun, fenced, renewed, amnesia, clockJump},
				NotApplicable: props{crashMid, crashMidRel, stale, failover},
			},
		},
		{
			Name:    "redlock-delayed-restart",
			Sources: "Redlock, a crashed master kept down for longer than the longest TTL",
			New:     newRedlock,
			Masters: 5,
			// Longer than the suite's longest TTL, Timing.Long (5s).
			RestartDelay: 6 * time.Second,
			Expect: locktest.Expect{
				Breaks:        props{overrun, fenced, renewed, clockJump},
				NotApplicable: props{crashMid, crashMidRel, stale, failover},
			},
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
