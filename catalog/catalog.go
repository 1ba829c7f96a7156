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
)

type props = []locktest.Property

// Strategies returns the fifteen strategies, from the most naive to the
// one to use, getsetcompare twice (as document 004 writes it, then as
// document 003 does), and last luatoken with the two fixes for an
// overrunning holder: auto-renewal and fencing tokens.
func Strategies() []Entry {
	return []Entry{
		{
			Name:    "setnxdel",
			Sources: "004 方式一/二, 003 简易锁",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxdel.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{locktest.CrashRecovery, doubleRel},
				NotApplicable: props{crashMid, crashMidRel, stale, skew, safeRel, safeRefresh, overrun, fenced, renewed},
			},
		},
		{
			Name:    "setnxexpire",
			Sources: "003 方案1, 002",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxexpire.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{crashMid, safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{crashMidRel, stale, skew, safeRefresh},
			},
		},
		{
			Name:    "multiget",
			Sources: "002 (as published)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return multiget.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{locktest.ReleaseFrees, crashMid, overrun, fenced, renewed},
				NotApplicable: props{locktest.Exclusion, stale, skew, doubleRel, safeRefresh},
			},
		},
		{
			Name:    "getset",
			Sources: "001, 000 (its prose)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getset.New(c.Pool, getset.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{skew, safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{safeRefresh},
			},
		},
		{
			Name:    "getsetexpire",
			Sources: "000 【代码实现】",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetexpire.New(c.Pool, getsetexpire.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{skew, safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{stale, safeRefresh},
			},
		},
		{
			Name:    "getsetcompare",
			Sources: "004 改进方式四",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetcompare.New(c.Pool, getsetcompare.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{skew, safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{crashMidRel, safeRefresh},
			},
		},
		{
			Name:    "getsetcompare-003",
			Sources: "003 方案2",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return getsetcompare.New(c.Pool, getsetcompare.WithClock(c.Clock), getsetcompare.Document003())
			},
			Expect: locktest.Expect{
				Breaks:        props{skew, safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{crashMidRel, safeRefresh},
			},
		},
		{
			Name:    "delsetnx",
			Sources: "000 (its P1/P2/P3 walk-through)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return delsetnx.New(c.Pool, delsetnx.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{stale, skew, safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{safeRefresh},
			},
		},
		{
			Name:    "delsetnxcheck",
			Sources: "004 方式三",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return delsetnxcheck.New(c.Pool, delsetnxcheck.WithClock(c.Clock))
			},
			Expect: locktest.Expect{
				Breaks:        props{locktest.Exclusion, stale, skew, safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{crashMidRel, safeRefresh},
			},
		},
		{
			Name:    "setnxpx",
			Sources: "003, 004 方式五",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return setnxpx.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{crashMid, crashMidRel, stale, skew, safeRefresh},
			},
		},
		{
			Name:    "fixedpassword",
			Sources: "004 方式六 (as its code writes it)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return fixedpassword.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{safeRel, doubleRel, overrun, fenced, renewed},
				NotApplicable: props{crashMid, crashMidRel, stale, skew, safeRefresh},
			},
		},
		{
			Name:    "tokengetdel",
			Sources: "004 (the GET then DEL between 方式五 and 方式六)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return tokengetdel.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{safeRel, overrun, fenced, renewed},
				NotApplicable: props{crashMid, stale, skew, safeRefresh},
			},
		},
		{
			Name:    "watchdel",
			Sources: "002 (as meant)",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return watchdel.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{crashMid, overrun, fenced, renewed},
				NotApplicable: props{stale, skew, safeRefresh},
			},
		},
		{
			Name:    "luatoken",
			Sources: "004 方式六, 002",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return luatoken.New(c.Pool)
			},
			Expect: locktest.Expect{
				Breaks:        props{overrun, fenced, renewed},
				NotApplicable: props{crashMid, crashMidRel, stale, skew},
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
			Expect: locktest.Expect{NotApplicable: props{crashMid, crashMidRel, stale, skew}},
		},
	}
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
