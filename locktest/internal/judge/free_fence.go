package judge

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// fenceOrder finds the first grant whose fencing token (Event.Fence) is
// out of the order in which the holds took the lock (history.FenceOrder):
// a grant b whose token is not above that of a grant a that returned
// before b's hold ended. a's acquire took the lock before it returned,
// and not while b's hold stood, which lasted at least until b's end
// (the end of a hold is never later than its key's: its call plus its
// TTL, or its release call); so a took it before b did, and a lock
// whose tokens grow with each grant gave a the smaller one. A shared
// hold or a permit (holds that stand beside others) is not compared,
// nor are two holds that stood at once (history.OneHolder's finding).
// The finding is the later of the two grants' events.
func fenceOrder(tl []history.Event) (finding, bool) {
	hs := holds(tl)
	type grant struct {
		h     hold
		token int64
	}
	var gs []grant
	for _, h := range hs {
		e := tl[h.event]
		if h.revived || e.Kind != history.EvAcquired || e.Fence == nil || h.mode == history.Shared || h.mode == history.Permit {
			continue
		}
		gs = append(gs, grant{h, *e.Fence})
	}
	best := finding{event: -1}
	for _, b := range gs {
		for _, a := range gs {
			if a.h == b.h || a.token < b.token || a.h.from >= b.h.to {
				continue
			}
			if b.h.from < a.h.to && a.h.from < a.h.to && b.h.from < b.h.to {
				continue // two valid holds at once: two holders, not a token out of order
			}
			at := max(a.h.event, b.h.event)
			if best.event < 0 || at < best.event {
				best = finding{history.FenceOrder, at, mFenceOrder.New(b.h.client, b.token, a.h.client, a.token)}
			}
		}
	}
	return best, best.event >= 0
}

var mFenceOrder = msg.Define("judge.fence-order", msg.K(msg.Client, msg.Count, msg.Client, msg.Count),
	"{0} was granted fencing token {1}, not above the {3} of {2}, which took the lock before it ({2}'s grant returned before {0}'s hold ended): a resource that keeps the highest token takes {2}'s late writes after {0}'s")
