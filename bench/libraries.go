package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
	zeroredis "github.com/zeromicro/go-zero/core/stores/redis"
)

// The libraries figure compares two lock libraries with luatoken on the
// same client library: rueidislock with luatoken on rueidis, go-zero's
// RedisLock with luatoken on go-redis. Each is measured uncontended at
// each of SameClientGoroutines (pairs/s, each goroutine on a key of its
// own) and handing the lock on among LibraryWaiters+1 goroutines on one
// key (critical sections per second: every one but the first is a
// hand-off from a release to a waiter). Rows take turns in rounds
// shuffled every time; each figure is the median over the rounds, with
// the slowest and the fastest round beside it.

// LibraryWaiters is how many goroutines wait while one holds, in the
// hand-off rows of the libraries figure.
const LibraryWaiters = 8

// The libraries figure's subjects.
const (
	RueidislockKM1 = "rueidislock (KeyMajority 1)"
	RueidislockKM2 = "rueidislock (KeyMajority 2, its default)"
	GoZero         = "go-zero RedisLock"
	goZeroWait     = "Acquire every 5ms"
)

// LibraryRow is one lock on one client in one case of the figure.
type LibraryRow struct {
	Client string `json:"client"`
	Name   string `json:"name"`
	// Goroutines: uncontended, each on a key of its own; Waiters: the
	// hand-off case, Waiters+1 goroutines on one key.
	Goroutines int `json:"goroutines,omitempty"`
	Waiters    int `json:"waiters,omitempty"`
	// Wait says how a waiter waits, in the hand-off case.
	Wait   string    `json:"wait,omitempty"`
	Rounds []float64 `json:"rounds_per_s"`
	Median float64   `json:"median_per_s"`
	Min    float64   `json:"min_per_s"`
	Max    float64   `json:"max_per_s"`
}

// Case names the row's case.
func (r *LibraryRow) Case() string {
	if r.Waiters > 0 {
		return fmt.Sprintf("hand-off, %d waiters", r.Waiters)
	}
	return fmt.Sprintf("uncontended, %d goroutine(s)", r.Goroutines)
}

// Spread prints the median and the range of the rounds.
func (r *LibraryRow) Spread() string {
	return fmt.Sprintf("%.0f (%.0f–%.0f)", r.Median, r.Min, r.Max)
}

// libEntry is a row and what one goroutine does once for it.
type libEntry struct {
	row *LibraryRow
	run func(ctx context.Context, g int) error
}

// libraries measures the libraries figure.
func (r *Runner) libraries(ctx context.Context, rep *Report) error {
	rounds := max(r.cfg.SameClientRounds, 2)
	per := r.cfg.SameClientTime
	warm := min(r.cfg.Warm, 50*time.Millisecond)
	cases := append([]int{}, SameClientGoroutines...)
	cases = append(cases, -LibraryWaiters) // negative: the hand-off case
	for _, c := range cases {
		entries, closeAll, err := r.libraryEntries(c)
		if err != nil {
			return err
		}
		G := c
		if c < 0 {
			G = -c + 1
		}
		order := slices.Clone(entries)
		rng := rand.New(rand.NewPCG(11, uint64(G)))
		for range rounds {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, e := range order {
				ops, el, err := runParallel(ctx, G, warm, per, e.run)
				if err != nil {
					closeAll()
					return fmt.Errorf("%s on %s, %s: %w", e.row.Name, e.row.Client, e.row.Case(), err)
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
			rep.Libraries = append(rep.Libraries, *e.row)
			r.logf("libraries: %-8s %-24s %-42s %s /s", e.row.Client, e.row.Case(), e.row.Name, e.row.Spread())
		}
	}
	return nil
}

// libraryEntries returns the rows of one case: c goroutines uncontended,
// or, negative, the hand-off among -c waiters and a holder on one key.
func (r *Runner) libraryEntries(c int) ([]*libEntry, func(), error) {
	G, waiters := c, 0
	if c < 0 {
		G, waiters = -c+1, -c
	}
	rq, err := r.rueidisClient()
	if err != nil {
		return nil, nil, err
	}
	rc := r.goRedis(G * 3)
	pool := r.redigoPool(1)
	cl := &Clients{Redigo: pool, GoRedis: rc, Rueidis: rq}
	closers := []func(){func() { rq.Close(); rc.Close(); pool.Close() }}
	closeAll := func() {
		for _, f := range slices.Backward(closers) {
			f()
		}
	}
	fail := func(err error) ([]*libEntry, func(), error) {
		closeAll()
		return nil, nil, err
	}
	keys := func(name string) []string {
		ks := make([]string, G)
		for g := range ks {
			if waiters > 0 {
				ks[g] = r.key("libraries", fmt.Sprint(c), name)
			} else {
				ks[g] = r.key("libraries", fmt.Sprint(c), name, fmt.Sprint(g))
			}
		}
		return ks
	}
	var entries []*libEntry
	add := func(client, name, wait string, run func(context.Context, int) error) {
		row := &LibraryRow{Client: client, Name: name, Goroutines: G}
		if waiters > 0 {
			row.Goroutines, row.Waiters, row.Wait = 0, waiters, wait
		}
		entries = append(entries, &libEntry{row: row, run: run})
	}
	// luatoken on each client: uncontended as the same-client figure
	// calls it; waiting, woken on release on rueidis (as rueidislock is,
	// by client-side caching) and every 5ms on go-redis (as the loop a
	// go-zero user writes).
	for _, lt := range []struct{ name, client, wait string }{
		{AdapterRueidis, ClientRueidis, WaitNotify},
		{AdapterGoRedis, ClientGoRedis, WaitFixed},
	} {
		wait := ""
		if waiters > 0 {
			wait = lt.wait
		}
		lks, err := Find(Subjects(), lt.name).Open(cl, keys(lt.name), wait)
		if err != nil {
			return fail(err)
		}
		add(lt.client, lt.name, lt.wait, func(_ context.Context, g int) error { return cycle(bg, lks[g]) })
	}
	for _, km := range []struct {
		name     string
		majority int32
	}{{RueidislockKM1, 1}, {RueidislockKM2, 2}} {
		opt := rueidis.ClientOption{InitAddress: []string{r.srv.Addr}}
		if u := r.url(); u != "" {
			if o, err := rueidis.ParseURL(u); err == nil {
				opt = o
			}
		}
		locker, err := rueidislock.NewLocker(rueidislock.LockerOption{ClientOption: opt, KeyMajority: km.majority, KeyValidity: TTL})
		if err != nil {
			return fail(err)
		}
		closers = append(closers, locker.Close)
		ks := keys(km.name)
		add(ClientRueidis, km.name, "woken by client-side caching", func(_ context.Context, g int) error {
			_, cancel, err := locker.WithContext(bg, ks[g])
			if err != nil {
				return err
			}
			cancel()
			return nil
		})
	}
	store, err := zeroredis.NewRedis(zeroredis.RedisConf{Host: r.srv.Addr, Type: zeroredis.NodeType, Pass: r.srv.Login.Password, PingTimeout: 5 * time.Second})
	if err != nil {
		return fail(err)
	}
	zk := keys("go-zero")
	add(ClientGoRedis, GoZero, goZeroWait, func(_ context.Context, g int) error {
		l := zeroredis.NewRedisLock(store, zk[g])
		l.SetExpire(int(TTL / time.Second))
		for {
			ok, err := l.AcquireCtx(bg)
			if err != nil {
				return err
			}
			if ok {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		ok, err := l.ReleaseCtx(bg)
		if err == nil && !ok {
			err = errNoLock
		}
		return err
	})
	return entries, closeAll, nil
}

// libraryTable is the libraries figure as a table.
func (rep *Report) libraryTable() *table {
	t := &table{head: []string{"client", "case", "lock", "per second: median (lowest–highest round)", "waiting"}, right: []bool{false, false, false, true, false}}
	for _, r := range rep.Libraries {
		t.add(r.Client, r.Case(), r.Name, r.Spread(), r.Wait)
	}
	return t
}
