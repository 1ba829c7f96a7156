package locktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/strategy"
)

// Capabilities are the optional interfaces of package strategy a lock has.
type Capabilities struct {
	Refresh     bool          // the lock is a strategy.Refresher
	Lease       bool          // the lock is a strategy.Leased, with its lease on
	Fencing     bool          // the lock is a strategy.Fenced, with tokens on
	Notify      bool          // the strategy is a strategy.Notifier, notifications on
	Granularity time.Duration // the step of TTL it announces (strategy.Granular), or 0
}

// capability is one field of Capabilities as the log and String name it.
type capability struct {
	name  Message // what String calls it
	iface string  // the interface that offers it
	has   bool
	// without says what the suite finds without it.
	without Message
}

func (c Capabilities) list() []capability {
	return []capability{
		{mCapRefresh.New(), "strategy.Refresher", c.Refresh, mWithoutRefresh.New()},
		{mCapLease.New(), "strategy.Leased", c.Lease, mWithoutLease.New()},
		{mCapFencing.New(), "strategy.Fenced", c.Fencing, mWithoutFencing.New()},
		{mCapNotify.New(), "strategy.Notifier", c.Notify, mWithoutNotify.New()},
	}
}

// String lists what the lock offers, what it does not, and its TTL step.
func (c Capabilities) String() string { return c.say(msg.English) }

// say is String in lang.
func (c Capabilities) say(lang msg.Lang) string {
	p := msg.Printer{Lang: lang}
	var has, hasNot []string
	for _, k := range c.list() {
		if k.has {
			has = append(has, p.Render(k.name))
		} else {
			hasNot = append(hasNot, p.Render(mCapNone.New(k.name)))
		}
	}
	parts := []string{joinWith(p, mCapAnd, has), joinWith(p, mCapAnd, hasNot)}
	if c.Granularity > 0 {
		parts = append(parts, p.Render(mCapStep.New(c.Granularity)))
	}
	return joinWith(p, mCapThen, slices.DeleteFunc(parts, func(s string) bool { return s == "" }))
}

// joinWith joins texts with d, a message of two texts.
func joinWith(p msg.Printer, d *msg.Def, texts []string) string {
	if len(texts) == 0 {
		return ""
	}
	s := texts[0]
	for _, t := range texts[1:] {
		s = p.Render(d.New(s, t))
	}
	return s
}

// explain is String with one line per capability: the interface that
// offers it and, where it is missing, what the suite finds without it.
func (c Capabilities) explain(lang msg.Lang) string {
	p := msg.Printer{Lang: lang}
	lines := []string{p.Render(mCapHeader.New(c.say(lang)))}
	for _, k := range c.list() {
		if k.has {
			lines = append(lines, "  "+p.Render(mCapYes.New(k.name, k.iface)))
		} else {
			lines = append(lines, "  "+p.Render(mCapNo.New(k.name, k.iface, k.without)))
		}
	}
	if c.Granularity > 0 {
		lines = append(lines, "  "+p.Render(mCapGranularity.New(c.Granularity)))
	}
	return strings.Join(lines, "\n")
}

// What the capabilities are called, and what the suite finds without them.
var (
	mCapRefresh = msg.Define("capability.refresh", nil, "refresh")
	mCapLease   = msg.Define("capability.lease", nil, "lease")
	mCapFencing = msg.Define("capability.fencing", nil, "fencing token")
	mCapNotify  = msg.Define("capability.notify", nil, "release notification")
	mCapNone    = msg.Define("capability.none", msg.K(msg.Sub), "no {0}")
	mCapAnd     = msg.Define("capability.and", msg.K(msg.Text, msg.Text), "{0}, {1}")
	mCapThen    = msg.Define("capability.then", msg.K(msg.Text, msg.Text), "{0}; {1}")
	mCapStep    = msg.Define("capability.step", msg.K(msg.Duration), "TTLs in steps of {0}")
	mCapHeader  = msg.Define("capability.header", msg.K(msg.Text), "capabilities: {0}")
	mCapYes     = msg.Define("capability.yes", msg.K(msg.Sub, msg.Text), "{0} ({1}): yes")
	mCapNo      = msg.Define("capability.no", msg.K(msg.Sub, msg.Text, msg.Sub), "{0} ({1}): no; {2}")

	mCapGranularity = msg.Define("capability.granularity", msg.K(msg.Duration),
		"granularity (strategy.Granular): {0}; every TTL the suite asks for is a multiple of it")
	mWithoutRefresh = msg.Define("capability.without-refresh", nil,
		"safe-refresh is n/a: there is no Refresh to call late")
	mWithoutLease = msg.Define("capability.without-lease", nil,
		"renewed-overrun breaks, as on every TTL lock that does not renew itself")
	mWithoutFencing = msg.Define("capability.without-fencing", nil,
		"fenced-overrun breaks, as on every TTL lock without fencing tokens")
	mWithoutNotify = msg.Define("capability.without-notify", nil,
		"waiters poll for the lock")
)

// capabilitiesOf returns the capabilities that the types of s and l show:
// l is a lock that s returned. Notify is true whenever s implements
// strategy.Notifier; Detect also asks it for a channel.
func capabilitiesOf(s strategy.Strategy, l strategy.Lock) Capabilities {
	_, refresh := l.(strategy.Refresher)
	_, lease := strategy.Lease(l)
	_, fencing := strategy.FencingToken(l)
	_, notify := s.(strategy.Notifier)
	return Capabilities{Refresh: refresh, Lease: lease, Fencing: fencing, Notify: notify, Granularity: granularityOf(s)}
}

// granularityOf is the step of TTL s announces, 0 when none.
func granularityOf(s strategy.Strategy) time.Duration {
	if g, ok := s.(strategy.Granular); ok {
		return max(g.Granularity(), 0)
	}
	return 0
}

// Detect acquires a lock once, on cfg.Key + ":capabilities", and says what
// it offers; an error says why it could not look, or Subscribe's.
func Detect(ctx context.Context, cfg Config) (Capabilities, error) {
	switch {
	case cfg.New == nil:
		return Capabilities{}, errors.New("locktest: Detect: nil Factory")
	case cfg.Addr == "" && cfg.Dial == nil:
		return Capabilities{}, errors.New("locktest: Detect: no Addr")
	case cfg.Key == "":
		return Capabilities{}, errors.New("locktest: Detect: empty Key")
	}
	type outcome struct {
		caps Capabilities
		err  error
	}
	o, err := watchdog(ctx, cfg.timeout(), func(ctx context.Context) outcome {
		caps, err := detect(ctx, cfg)
		return outcome{caps, err}
	})
	switch e := err.(type) {
	case nil:
		return o.caps, o.err
	case *panicked:
		return Capabilities{}, fmt.Errorf("locktest: Detect: the strategy panicked: %v\n%s", e.v, e.stack)
	case *hung:
		return Capabilities{}, fmt.Errorf("locktest: Detect: no lock after %v: %w", e.after, e.err)
	default: // an abort
		return Capabilities{}, fmt.Errorf("locktest: Detect: %w", err)
	}
}

func detect(ctx context.Context, cfg Config) (caps Capabilities, err error) {
	pool := cfg.pool()
	defer pool.Close()
	key := cfg.Key + ":capabilities"
	r := harness.NewRun(ctx, cfg.setting(), pool, key)
	defer r.Shutdown()
	s := r.NewClient("D", 0).S
	tm := cfg.Timing
	if tm.Granularity <= 0 {
		tm.Granularity = granularityOf(s)
	}
	l, err := s.TryAcquire(ctx, key, tm.Resolved().Long)
	switch {
	case err != nil:
		return Capabilities{}, fmt.Errorf("locktest: Detect: TryAcquire on a free key: %w", err)
	case l == nil:
		return Capabilities{}, errors.New("locktest: Detect: TryAcquire returned neither a lock nor an error")
	}
	caps = capabilitiesOf(s, l)
	var subErr error
	if n, ok := s.(strategy.Notifier); ok {
		wake, stop, err := n.Subscribe(ctx, key)
		if err != nil {
			subErr = fmt.Errorf("locktest: Detect: Subscribe: %w", err)
		} else {
			caps.Notify = wake != nil
			if stop != nil {
				stop()
			}
		}
	}
	// What Release returns is for the properties to judge (release-frees,
	// double-release), not a reason to know less about the lock.
	_ = l.Release(ctx)
	return caps, subErr
}

// Announced returns the TTL step of cfg's strategy (strategy.Granular), or 0.
func Announced(ctx context.Context, cfg Config) (time.Duration, error) {
	// It builds the strategy once, for a client that sends nothing (an
	// -exec program announces granularity=<ms>); a caller that checks one
	// lock many times calls it once and sets the granularity itself.
	if cfg.New == nil {
		return 0, errors.New("locktest: Announced: nil Factory")
	}
	pool := cfg.pool()
	defer pool.Close()
	return watchdog(ctx, cfg.timeout(), func(ctx context.Context) time.Duration {
		r := harness.NewRun(ctx, cfg.setting(), pool, cfg.Key+":scale")
		defer r.Shutdown()
		return granularityOf(r.NewClient("D", 0).S)
	})
}
