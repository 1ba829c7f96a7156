package judge

import (
	"slices"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// What a refresh tells its holder, and what a lock does on its own
// between the calls of its holder.

// lateRefresh finds the first refresh that returned success, within the
// TTL it asked for counted from its call, while another client's hold,
// granted before it returned and valid when it did, forbade the
// refreshed one, by mode and permits: the lock told two clients at once
// that they hold it. A lock that keeps its word cannot: had the refresh
// run before the other's grant wrote, that grant would have found the
// refreshed hold in its way; had it run after, it would have found the
// other's hold in place of its own, and extended nothing. A reply that
// came late changes nothing: the refreshed hold counts from the
// refresh's call. capacity is a semaphore's number of permits.
func lateRefresh(tl []history.Event, capacity int) (finding, bool) {
	hs := holds(tl)
	o := newOpens()
	n := 0
	for k, e := range tl {
		i, held := o.of(e)
		switch {
		case e.Kind == history.EvAcquired && e.Err == "":
			o.add(e, n)
			n++
		case e.Kind == history.EvReleased && held:
			o.close(e, i, false)
		case e.Kind == history.EvRefreshed && e.Err == "" && held && i < len(hs) && e.TTL > 0 && e.At < e.Call+e.TTL-serverTick:
			b := hs[i]
			b.from = e.At
			var during []hold
			for j, a := range hs {
				if j != i && a.client != b.client && a.from < e.At && e.At < a.to-serverTick {
					during = append(during, a)
				}
			}
			if _, ok := conflict(b, during, capacity); ok {
				var names []string
				for _, a := range during {
					if !slices.Contains(names, a.client) {
						names = append(names, a.client)
					}
				}
				return finding{history.OneHolder, k, mRefreshWhileHeld.New(b.client, names)}, true
			}
		}
	}
	return finding{}, false
}

// outsideCalls says whether a command client sent at t came while no
// lock call of its was under way (from its call to its return): a lock
// that renews its holds on its own (a watchdog) sends such commands, and
// the history cannot say what they did (see lives).
func outsideCalls(tl []history.Event) func(client string, t time.Duration) bool {
	calls := map[string][][2]time.Duration{}
	for _, e := range tl {
		if returns(e.Kind) && e.Call > 0 {
			calls[e.Client] = append(calls[e.Client], [2]time.Duration{e.Call, e.At})
		}
	}
	return func(c string, t time.Duration) bool {
		return !slices.ContainsFunc(calls[c], func(span [2]time.Duration) bool { return span[0] <= t && t <= span[1] })
	}
}

var mRefreshWhileHeld = msg.Define("judge.refresh-while-held", msg.K(msg.Client, msg.Clients),
	"{0}'s refresh returned success while {1} held the lock within its TTL: two clients were told that they hold it")
