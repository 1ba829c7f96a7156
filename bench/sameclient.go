package bench

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gomodule/redigo/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// The same-client figure compares locks that send their commands through
// the same client library: a lock on rueidis against a lock on redigo
// measures the clients as much as the locks. On each client kind, at each
// of SameClientGoroutines, every lock that runs on it (luatoken, redsync,
// redislock where it can) and the fastest ways to send luatoken's two
// commands by hand take turns in rounds shuffled every time; each figure
// is the median pairs per second over the rounds, with the slowest and the
// fastest round beside it.

// SameClientGoroutines are the goroutine counts of the same-client figure,
// each goroutine on a key of its own.
var SameClientGoroutines = []int{1, 16, 64}

// Kinds of entry in the same-client figure.
const (
	EntryLock = "lock"
	EntryHand = "by hand"
)

// The ways of sending luatoken's commands by hand in the same-client
// figure, besides the one the locks use (a pooled connection per command,
// no context: handPooled).
const (
	handPooled   = "pooled"
	handCtx      = "pooled, ctx with deadline"
	handPinned   = "pinned connection"
	ltCtxVariant = "ctx with deadline"
)

// SameClientRow is one lock, or one way by hand, on one client at one
// goroutine count.
type SameClientRow struct {
	Client     string `json:"client"`
	Goroutines int    `json:"goroutines"`
	Kind       string `json:"kind"` // EntryLock or EntryHand
	// Name is the lock's subject name, or the way by hand.
	Name string `json:"name"`
	// Variant says how the lock was called ("" for context.Background()).
	Variant string    `json:"variant,omitempty"`
	Rounds  []float64 `json:"rounds_ops_per_s"`
	Median  float64   `json:"median_ops_per_s"`
	Min     float64   `json:"min_ops_per_s"`
	Max     float64   `json:"max_ops_per_s"`
}

// Label names the row in tables.
func (r *SameClientRow) Label() string {
	switch {
	case r.Kind == EntryHand:
		return "by hand, " + r.Name
	case r.Variant != "":
		return r.Name + " (" + r.Variant + ")"
	}
	return r.Name
}

// Spread prints the median and the range of the rounds.
func (r *SameClientRow) Spread() string {
	return fmt.Sprintf("%.0f (%.0f–%.0f)", r.Median, r.Min, r.Max)
}

// overlap reports whether the ranges of two rows' rounds overlap: then no
// difference between them was measured.
func overlap(a, b *SameClientRow) bool { return a.Min <= b.Max && b.Min <= a.Max }

// CompareText is a / b as a ratio of medians, or "no difference measured"
// when their rounds overlap.
func CompareText(a, b *SameClientRow) string {
	if overlap(a, b) {
		return "no difference measured"
	}
	return fmt.Sprintf("%.2f×", a.Median/b.Median)
}

type sameEntry struct {
	row *SameClientRow
	run func(ctx context.Context, g int) error
}

// sameClient measures the same-client figure.
func (r *Runner) sameClient(ctx context.Context, rep *Report) error {
	rounds := max(r.cfg.SameClientRounds, 2)
	per := r.cfg.SameClientTime
	warm := min(r.cfg.Warm, 50*time.Millisecond)
	for _, G := range SameClientGoroutines {
		entries, closeAll, err := r.sameClientEntries(G)
		if err != nil {
			return err
		}
		order := slices.Clone(entries)
		rng := rand.New(rand.NewPCG(7, uint64(G)))
		for range rounds {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, e := range order {
				ops, el, err := runParallel(ctx, G, warm, per, e.run)
				if err != nil {
					closeAll()
					return fmt.Errorf("%s on %s, %d goroutines: %w", e.row.Label(), e.row.Client, G, err)
				}
				e.row.Rounds = append(e.row.Rounds, float64(ops)/el.Seconds())
			}
		}
		closeAll()
		for _, e := range entries {
			s := slices.Sorted(slices.Values(e.row.Rounds))
			e.row.Median, e.row.Min, e.row.Max = s[len(s)/2], s[0], s[len(s)-1]
			if len(s)%2 == 0 {
				e.row.Median = (s[len(s)/2-1] + s[len(s)/2]) / 2
			}
			rep.SameClient = append(rep.SameClient, *e.row)
			r.logf("same client: %-8s %2d goroutines  %-40s %s pairs/s", e.row.Client, G, e.row.Label(), e.row.Spread())
		}
	}
	return nil
}

// sameClientEntries returns the entries of the figure at G goroutines:
// on each client kind, the locks that run on it, called with
// context.Background() and (luatoken) with a context with a deadline, and
// luatoken's commands by hand in each way the client offers.
func (r *Runner) sameClientEntries(G int) ([]*sameEntry, func(), error) {
	rq, err := r.rueidisClient()
	if err != nil {
		return nil, nil, err
	}
	pool := r.redigoPool(G * 3)
	rc := r.goRedis(G * 3)
	cl := &Clients{Redigo: pool, GoRedis: rc, Rueidis: rq}
	var closers []func()
	closeAll := func() {
		for _, c := range slices.Backward(closers) {
			c()
		}
		rq.Close()
		pool.Close()
		rc.Close()
	}
	// A deadline far away: what matters is that the context has one.
	dctx, cancel := context.WithTimeout(context.Background(), 24*time.Hour)
	closers = append(closers, cancel)

	var entries []*sameEntry
	keys := func(name string) []string {
		ks := make([]string, G)
		for g := range ks {
			ks[g] = r.key("same", fmt.Sprint(G), name, fmt.Sprint(g))
		}
		return ks
	}
	add := func(kind, client, name, variant string, run func(context.Context, int) error) {
		entries = append(entries, &sameEntry{
			row: &SameClientRow{Client: client, Goroutines: G, Kind: kind, Name: name, Variant: variant},
			run: run,
		})
	}
	for _, s := range Subjects() {
		if s.Group == GroupRecipe || s.Name == NotifyName {
			continue
		}
		if len(r.cfg.Only) > 0 && !slices.Contains(r.cfg.Only, s.Name) {
			continue
		}
		lks, err := s.Open(cl, keys(s.Name), "")
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		add(EntryLock, s.Client, s.Name, "", func(_ context.Context, g int) error { return cycle(bg, lks[g]) })
		if s.Group == GroupLocklab {
			lks, err := s.Open(cl, keys(s.Name+":ctx"), "")
			if err != nil {
				closeAll()
				return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
			}
			add(EntryLock, s.Client, s.Name, ltCtxVariant, func(_ context.Context, g int) error { return cycle(dctx, lks[g]) })
		}
	}
	for _, kind := range ClientKinds {
		h := handOf(kind, cl)
		ks := keys("hand:" + kind)
		add(EntryHand, kind, handPooled, "", func(_ context.Context, g int) error { return h.setEval(bg, ks[g]) })
		kc := keys("hand-ctx:" + kind)
		pk := keys("hand-pinned:" + kind)
		switch kind {
		case ClientRedigo:
			add(EntryHand, kind, handCtx, "", func(_ context.Context, g int) error {
				return setEvalRedigoContext(dctx, pool, kc[g], any(newToken()))
			})
			conns := make([]redis.Conn, G)
			for g := range conns {
				conns[g] = pool.Get()
				closers = append(closers, func() { conns[g].Close() })
			}
			add(EntryHand, kind, handPinned, "", func(_ context.Context, g int) error {
				return setEvalRedigoPinned(conns[g], pk[g], any(newToken()))
			})
		case ClientGoRedis:
			add(EntryHand, kind, handCtx, "", func(_ context.Context, g int) error {
				return setEvalGoRedis(dctx, rc, kc[g], any(newToken()))
			})
			conns := make([]*goredis.Conn, G)
			for g := range conns {
				conns[g] = rc.Conn()
				closers = append(closers, func() { conns[g].Close() })
			}
			add(EntryHand, kind, handPinned, "", func(_ context.Context, g int) error {
				return setEvalGoRedis(bg, conns[g], pk[g], any(newToken()))
			})
		case ClientRueidis:
			add(EntryHand, kind, handCtx, "", func(_ context.Context, g int) error {
				return setEvalRueidis(dctx, rq, kc[g], newToken())
			})
			conns := make([]rueidis.DedicatedClient, G)
			for g := range conns {
				dc, cancel := rq.Dedicate()
				conns[g] = dc
				closers = append(closers, cancel)
			}
			add(EntryHand, kind, handPinned, "", func(_ context.Context, g int) error {
				return setEvalRueidisPinned(bg, conns[g], pk[g], newToken())
			})
		}
	}
	return entries, closeAll, nil
}

// setEvalRedigoContext is setEvalRedigo with each command bounded by ctx
// through redigo's DoContext.
func setEvalRedigoContext(ctx context.Context, p RedigoPool, key string, token any) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	_, err = redis.String(redis.DoContext(c, ctx, "SET", key, token, "NX", "PX", TTL.Milliseconds()))
	c.Close()
	if err != nil {
		return err
	}
	if c, err = p.GetContext(ctx); err != nil {
		return err
	}
	defer c.Close()
	n, err := redis.Int(casDel.DoContext(ctx, c, key, token))
	if err == nil && n != 1 {
		err = errNoLock
	}
	return err
}

// setEvalRedigoPinned sends luatoken's commands on one connection held
// by the goroutine, without a pool in between.
func setEvalRedigoPinned(c redis.Conn, key string, token any) error {
	if _, err := redis.String(c.Do("SET", key, token, "NX", "PX", TTL.Milliseconds())); err != nil {
		return err
	}
	n, err := redis.Int(casDel.Do(c, key, token))
	if err == nil && n != 1 {
		err = errNoLock
	}
	return err
}

// setEvalRueidisPinned is setEvalRueidis on a dedicated connection.
func setEvalRueidisPinned(ctx context.Context, c rueidis.DedicatedClient, key, token string) error {
	set := c.B().Set().Key(key).Value(token).Nx().PxMilliseconds(TTL.Milliseconds()).Build()
	if err := c.Do(ctx, set).Error(); err != nil {
		return err
	}
	// Lua.Exec takes a whole client; on a dedicated connection the
	// script goes as rueidis's Lua would send it: EVALSHA, EVAL on NOSCRIPT.
	res := c.Do(ctx, c.B().Evalsha().Sha1(casDelSHA).Numkeys(1).Key(key).Arg(token).Build())
	if err, ok := rueidis.IsRedisErr(res.Error()); ok && err.IsNoScript() {
		res = c.Do(ctx, c.B().Eval().Script(casDelSrc).Numkeys(1).Key(key).Arg(token).Build())
	}
	n, err := res.AsInt64()
	if err == nil && n != 1 {
		err = errNoLock
	}
	return err
}

var casDelSHA = func() string {
	sum := sha1.Sum([]byte(casDelSrc))
	return hex.EncodeToString(sum[:])
}()

// Targets of the same-client figure.
const (
	MinSamePeerRatio = 0.97 // luatoken's pairs/s against the fastest peer on its client
	MaxSameHandRatio = 1.05 // the fastest way by hand's pairs/s against luatoken's

	TargetSamePeer   = "luatoken on %s, %d goroutine(s), vs the fastest peer on %s"
	TargetSameHand   = "the fastest way by hand on %s, %d goroutine(s), vs luatoken"
	TargetSameAllocs = "luatoken allocations per acquire + release on %s vs the peers on %s"
)

// sameRow returns the row of the figure, or nil.
func (rep *Report) sameRow(client string, g int, kind, name, variant string) *SameClientRow {
	for i := range rep.SameClient {
		r := &rep.SameClient[i]
		if r.Client == client && r.Goroutines == g && r.Kind == kind && r.Name == name && r.Variant == variant {
			return r
		}
	}
	return nil
}

// luatokenOn names luatoken's subject on the client kind.
func luatokenOn(client string) string {
	switch client {
	case ClientGoRedis:
		return AdapterGoRedis
	case ClientRueidis:
		return AdapterRueidis
	}
	return Locklab
}

// fastest returns the row of the highest median among the rows that pass keep.
func (rep *Report) fastest(client string, g int, keep func(*SameClientRow) bool) *SameClientRow {
	var best *SameClientRow
	for i := range rep.SameClient {
		r := &rep.SameClient[i]
		if r.Client == client && r.Goroutines == g && keep(r) && (best == nil || r.Median > best.Median) {
			best = r
		}
	}
	return best
}

// sameClientTargets checks luatoken against the peers and against its
// commands by hand on each client, by the ratio of the medians; the note
// gives both ranges and says "no difference measured" where they overlap.
func sameClientTargets(rep *Report) []Target {
	var ts []Target
	for _, client := range ClientKinds {
		for _, g := range SameClientGoroutines {
			lt := rep.sameRow(client, g, EntryLock, luatokenOn(client), "")
			if lt == nil {
				continue
			}
			peer := rep.fastest(client, g, func(r *SameClientRow) bool { return r.Kind == EntryLock && GroupOf(r.Name) == GroupPeer })
			if peer != nil {
				got := lt.Median / peer.Median
				ts = append(ts, Target{
					Name: fmt.Sprintf(TargetSamePeer, client, g, client), Subject: lt.Name,
					Want: fmt.Sprintf("≥ %.2f×", MinSamePeerRatio), Limit: MinSamePeerRatio, Got: got,
					Met:    got >= MinSamePeerRatio,
					Spread: ptr(ratioSpread(lt.Rounds, peer.Rounds)),
					Note:   fmt.Sprintf("%s %s vs %s %s pairs/s: %s", lt.Name, lt.Spread(), peer.Name, peer.Spread(), CompareText(lt, peer)),
				})
			}
			hand := rep.fastest(client, g, func(r *SameClientRow) bool { return r.Kind == EntryHand })
			if hand != nil {
				got := hand.Median / lt.Median
				ts = append(ts, Target{
					Name: fmt.Sprintf(TargetSameHand, client, g), Subject: lt.Name,
					Want: fmt.Sprintf("≤ %.2f×", MaxSameHandRatio), Limit: MaxSameHandRatio, Got: got,
					Met:    got <= MaxSameHandRatio,
					Spread: ptr(ratioSpread(hand.Rounds, lt.Rounds)),
					Note:   fmt.Sprintf("by hand, %s %s vs %s %s pairs/s: %s", hand.Name, hand.Spread(), lt.Name, lt.Spread(), CompareText(hand, lt)),
				})
			}
		}
		lt := rep.Row(luatokenOn(client))
		if lt == nil || lt.AllocsPerOp == nil {
			continue
		}
		least, name := 0.0, ""
		for _, s := range Subjects() {
			r := rep.Row(s.Name)
			if s.Group != GroupPeer || s.Client != client || r == nil || r.AllocsPerOp == nil {
				continue
			}
			if name == "" || *r.AllocsPerOp < least {
				least, name = *r.AllocsPerOp, s.Name
			}
		}
		if name != "" {
			ts = append(ts, Target{
				Name: fmt.Sprintf(TargetSameAllocs, client, client), Subject: lt.Name,
				Want: fmt.Sprintf("≤ %.1f", least), Limit: least, Got: *lt.AllocsPerOp, Met: *lt.AllocsPerOp <= least, Count: true,
				Note: fmt.Sprintf("%.1f vs %s's %.1f", *lt.AllocsPerOp, name, least),
			})
		}
	}
	return ts
}

// sameClientTable lays the figure out: per client and goroutine count,
// each lock and way by hand with its median and range, and how it
// compares with luatoken on the same client.
func (rep *Report) sameClientTable() *table {
	t := &table{
		head:  []string{"client", "goroutines", "lock, or luatoken's commands by hand", "pairs/s: median (slowest–fastest round)", "against luatoken"},
		right: []bool{false, true, false, true, true},
	}
	for i := range rep.SameClient {
		r := &rep.SameClient[i]
		cmp := "–"
		if lt := rep.sameRow(r.Client, r.Goroutines, EntryLock, luatokenOn(r.Client), ""); lt != nil && lt != r {
			cmp = CompareText(r, lt)
		}
		t.add(r.Client, fmt.Sprint(r.Goroutines), r.Label(), r.Spread(), cmp)
	}
	return t
}
