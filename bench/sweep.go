package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// The peers' retry delays are swept at each count of waiters, so that the
// hand-off figure compares luatoken woken on release with each peer at the
// delay that suits the workload best, not only at its documented default.
// A shorter delay hands the lock over sooner until the waiters' tries load
// the server more than they gain: past that, the tries of the waiters that
// cannot win slow down the release and the next acquire, and fewer
// critical sections get through. The sweep tries each of SweepDelays
// (Rounds rounds of SweepTime/Rounds, the delays taking turns) and keeps
// the one with the most critical sections per second (median over the
// rounds): the shortest delay that no shorter one beat.

// DefaultSweepDelays are the retry delays the sweep tries.
var DefaultSweepDelays = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
}

// SweptPeers are the peers whose retry delay the sweep chooses: redsync on
// redigo (luatoken's client) and redislock on go-redis (its only one).
var SweptPeers = []string{Redsync, Redislock}

// SweepPoint is one retry delay tried for a peer at one count of waiters.
type SweepPoint struct {
	Subject       string  `json:"subject"`
	Waiters       int     `json:"waiters"`
	DelayMs       float64 `json:"delay_ms"`
	CSPerS        Spread  `json:"cs_per_s"`
	HandoffP50us  Spread  `json:"handoff_p50_us"`
	CommandsPerCS Spread  `json:"commands_per_cs"`
	Chosen        bool    `json:"chosen,omitempty"`
}

// sweepPeers tries every delay of the sweep for each swept peer with n
// waiters, records the points in rep.Sweep, and returns the delay chosen
// for each peer.
func (r *Runner) sweepPeers(ctx context.Context, cl *Clients, cur *atomic.Pointer[atomic.Int64], n int, rep *Report) (map[string]time.Duration, error) {
	best := map[string]time.Duration{}
	delays := r.cfg.SweepDelays
	if len(delays) == 0 {
		return best, nil
	}
	per := r.cfg.SweepTime / time.Duration(r.cfg.Rounds)
	for _, name := range SweptPeers {
		s := Find(r.subs, name)
		if s == nil {
			continue
		}
		rounds := make([][]contendedResult, len(delays))
		for round := range r.cfg.Rounds {
			for i, d := range delays {
				// Keys of their own: the sweep's rounds count from 1000.
				res, err := r.contendedRun(ctx, cl, cur, s, RetryEvery(d), n, per, 1000+round)
				if err != nil {
					return nil, fmt.Errorf("sweep: %s every %v, %d waiters: %w", name, d, n, err)
				}
				rounds[i] = append(rounds[i], res)
			}
		}
		first, bi := len(rep.Sweep), 0
		for i, d := range delays {
			row := contendedRow(s, RetryEvery(d), n, per, rounds[i])
			rep.Sweep = append(rep.Sweep, SweepPoint{
				Subject: name, Waiters: n, DelayMs: row.RetryDelayMs,
				CSPerS: row.CSPerS, HandoffP50us: row.HandoffP50us, CommandsPerCS: row.CommandsPerCS,
			})
			if row.CSPerS.Median > rep.Sweep[first+bi].CSPerS.Median {
				bi = i
			}
			r.logf("sweep: %3d waiters %-10s every %-5v %s CS/s  hand-off p50 %sµs  %s commands/CS",
				n, name, d, row.CSPerS.Text("%.0f"), row.HandoffP50us.Text("%.0f"), row.CommandsPerCS.Text("%.1f"))
		}
		rep.Sweep[first+bi].Chosen = true
		best[name] = delays[bi]
		r.logf("sweep: %3d waiters %-10s chose every %v", n, name, delays[bi])
	}
	return best, nil
}
