package judge

import (
	"slices"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// The rules on what the suite read of the lock's keys (history.EvRead).
// A hold, at the keys, is its holder's own values there (a token: a value
// that client alone wrote); anything else at a lock key (a queue entry, a
// waiting mark, a counter, a hash of readers) is the lock's bookkeeping,
// which any call may write, a refused attempt included.

// onReads are the rules on the reads, by name: a claim of one of them
// stands when its finder finds it.
var onReads = map[history.Rule]func([]history.Event) (finding, bool){
	history.Untouched:  untouched,
	history.GrantOwned: grantOwned,
	history.FullLease:  fullLease,
}

// leaseTolerance is how much sooner than its hold's end a key read with
// its holder's value may expire: PTTL counts whole milliseconds.
const leaseTolerance = 2 * time.Millisecond

// readsOf returns the indices of tl's reads of the lock's keys.
func readsOf(tl []history.Event) []int {
	var out []int
	for i, e := range tl {
		if e.Kind == history.EvRead && e.Read != nil && len(e.Read.Keys) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// senders returns the clients that sent commands in tl[i+1:j], each
// with the index of its last.
func senders(tl []history.Event, i, j int) ([]string, []int) {
	var who []string
	var last []int
	for k := i + 1; k < j; k++ {
		e := tl[k]
		if e.Kind != history.EvCommand {
			continue
		}
		if n := slices.Index(who, e.Client); n >= 0 {
			last[n] = k
			continue
		}
		who, last = append(who, e.Client), append(last, k)
	}
	return who, last
}

// authorOf picks, among who (each with the index of its last command),
// the client whose command naming key came last, or the last to send
// anything: the likeliest to have changed the key since the read before.
func authorOf(tl []history.Event, who []string, last []int, key history.Arg) (string, int) {
	best, bestAt := -1, -1
	for n, c := range who {
		for k := last[n]; k >= 0 && k > bestAt; k-- {
			e := tl[k]
			if e.Client != c || e.Kind != history.EvCommand {
				continue
			}
			if slices.ContainsFunc(e.Command, func(a history.Arg) bool { return a.Kind == key.Kind && a.Text == key.Text }) {
				best, bestAt = n, k
				break
			}
		}
	}
	if best < 0 {
		for n := range who {
			if best < 0 || last[n] > last[best] {
				best = n
			}
		}
	}
	return who[best], last[best]
}

// opAt names the lock call of client that tl[k] belongs to: the first
// of its returns from k on (an attempt, refused or not, is an acquire).
func opAt(tl []history.Event, client string, k int) msg.Arg {
	op := "acquire"
	for _, e := range tl[k:] {
		if e.Client != client || !returns(e.Kind) {
			continue
		}
		switch e.Kind {
		case history.EvReleased:
			op = "release"
		case history.EvRefreshed:
			op = "refresh"
		}
		break
	}
	return msg.Arg{Kind: msg.Op, Text: op}
}

// validAt returns client's hold valid from from to to, the last granted.
func validAt(hs []hold, client string, from, to time.Duration) (hold, bool) {
	for i := len(hs) - 1; i >= 0; i-- {
		if h := hs[i]; h.client == client && h.from <= from && to < h.to {
			return h, true
		}
	}
	return hold{}, false
}

// ownerOf says whose hold the value k, read at tl[j], is: its writer's,
// when it is a token; else, for a value that several clients wrote
// alike (SET K 1), the one client whose hold is valid then and whose
// grant sent that value. Anything else is bookkeeping: "".
func ownerOf(tl []history.Event, hs []hold, j int, k history.KeyValue) string {
	if o := k.Owner(); o != "" || k.Value == nil {
		return o
	}
	owner := ""
	for _, h := range hs {
		if !(h.from <= tl[j].At && tl[j].At < h.to) || h.client == owner || !sentBy(tl, h.event, *k.Value) {
			continue
		}
		if owner != "" {
			return "" // two holders wrote it: nobody's own
		}
		owner = h.client
	}
	return owner
}

// sentBy says whether the lock call that tl[g] returns from sent v as an
// argument of one of its commands.
func sentBy(tl []history.Event, g int, v history.Arg) bool {
	c := tl[g].Client
	for k := g - 1; k >= 0; k-- {
		e := tl[k]
		if e.Client != c {
			continue
		}
		if returns(e.Kind) {
			return false
		}
		if e.Kind == history.EvCommand && slices.ContainsFunc(e.Command, func(a history.Arg) bool { return a.Kind == v.Kind && a.Text == v.Text }) {
			return true
		}
	}
	return false
}

// keyArg is a lock key as a message's value.
func keyArg(a history.Arg) msg.Arg {
	return msg.Arg{Kind: msg.Value, Value: string(a.Kind), Text: a.Text}
}

// untouched finds the first read that shows a valid hold changed by
// another client (history.Untouched; see changes).
func untouched(tl []history.Event) (finding, bool) {
	if cs := changes(tl); len(cs) > 0 {
		return cs[0].finding, true
	}
	return finding{}, false
}

// change is a valid hold changed by another client: who may have done
// it (the clients that sent commands meanwhile), whose, and the finding,
// which names the likeliest (authorOf).
type change struct {
	authors []string
	holder  string
	finding
}

// changes lists the reads that show a valid hold changed by another
// client: its holder's own value at a key gone or replaced, or, at K, its
// expiry removed or pushed back, since the read before, with others'
// commands between them and none of the holder's.
func changes(tl []history.Event) []change {
	var out []change
	rs := readsOf(tl)
	for n := 1; n < len(rs); n++ {
		p, j := rs[n-1], rs[n]
		prev, cur := tl[p].Read, tl[j].Read
		who, last := senders(tl, p, j)
		// Whose each value was when it was read, and whether that hold
		// was still valid at the next read, as the calls returned by
		// then say: a refresh that returned in between is no owner.
		before, hs := holds(tl[:p]), holds(tl[:j])
		if c, ok := entryRemoved(tl, prev, cur, who, last, hs, p, j); ok {
			out = append(out, c)
		}
		for i, k := range prev.Keys {
			h := ownerOf(tl, before, p, k)
			if h == "" || slices.Contains(who, h) || len(who) == 0 {
				continue
			}
			if _, ok := validAt(hs, h, tl[p].At, tl[j].At); !ok {
				continue
			}
			author, k0 := authorOf(tl, who, last, k.Key)
			op := opAt(tl, author, k0)
			at := slices.IndexFunc(cur.Keys, func(c history.KeyValue) bool { return c.Key == k.Key })
			isK := k.Key.Kind == history.ArgKey
			var m history.Message
			switch {
			case (at < 0 || cur.Keys[at].Value == nil) && isK:
				m = MsgDeleted.New(author, op, h)
			case at < 0 || cur.Keys[at].Value == nil:
				m = MsgDeletedKey.New(author, op, keyArg(k.Key), h)
			case *cur.Keys[at].Value != *k.Value && isK:
				m = MsgOverwrote.New(author, op, h)
			case *cur.Keys[at].Value != *k.Value:
				m = mOverwroteKey.New(author, op, keyArg(k.Key), h)
			case i > 0 || prev.PTTL < 0:
				continue // K's expiry is the first key's
			case cur.PTTL == -1:
				m = MsgExpiryRemoved.New(author, op, h)
			case cur.PTTL > prev.PTTL:
				m = MsgExpiryPushed.New(author, op, h, shown(prev.PTTL), shown(cur.PTTL))
			default:
				continue
			}
			out = append(out, change{who, h, finding{history.Untouched, j, m}})
			break
		}
	}
	return out
}

// entryRemoved finds a holder's own entry (its token among a hash's
// fields, a set's members) that the read cur no longer shows, when the
// holder's hold stayed valid from the read prev (tl[p]) to cur (tl[j])
// and only others (who) sent commands between them.
func entryRemoved(tl []history.Event, prev, cur *history.Read, who []string, last []int, hs []hold, p, j int) (change, bool) {
	for _, k := range prev.Keys {
		at := slices.IndexFunc(cur.Keys, func(c history.KeyValue) bool { return c.Key == k.Key })
		for _, e := range k.Entries {
			h := e.Client
			if e.Kind != history.ArgToken || len(who) == 0 || slices.Contains(who, h) {
				continue
			}
			if at >= 0 && slices.Contains(cur.Keys[at].Entries, e) {
				continue
			}
			if _, ok := validAt(hs, h, tl[p].At, tl[j].At); !ok {
				continue
			}
			author, k0 := authorOf(tl, who, last, k.Key)
			return change{who, h, finding{history.Untouched, j, mEntryRemoved.New(author, opAt(tl, author, k0), h, keyArg(k.Key))}}, true
		}
	}
	return change{}, false
}

// changedClaim finds, in an Observed claim's reason, the change of a
// holder's lock by another client that it reports (the changed.*
// messages): its author and holder.
func changedClaim(m history.Message) (author, holder string, ok bool) {
	switch m.ID {
	case MsgDeleted.ID, MsgOverwrote.ID, MsgExpiryRemoved.ID, MsgExpiryPushed.ID:
		return m.Args[0].Text, m.Args[2].Text, true
	case MsgDeletedKey.ID, mOverwroteKey.ID:
		return m.Args[0].Text, m.Args[3].Text, true
	}
	for _, a := range m.Args {
		if a.Msg != nil {
			if author, holder, ok := changedClaim(*a.Msg); ok {
				return author, holder, ok
			}
		}
	}
	return "", "", false
}

// showsChange says whether tl shows author changing holder's valid
// hold, when it can tell: it holds reads of the lock's keys, and author
// and holder are two of its clients; else it takes the claim at its word.
func showsChange(tl []history.Event, author, holder string) bool {
	clients := map[string]bool{}
	for _, e := range tl {
		clients[e.Client] = true
	}
	if len(readsOf(tl)) == 0 || author == holder || !clients[author] || !clients[holder] {
		return true
	}
	return slices.ContainsFunc(changes(tl), func(c change) bool { return c.holder == holder && slices.Contains(c.authors, author) })
}

// ms is a PTTL as a duration.
func ms(pttl int64) time.Duration { return time.Duration(pttl) * time.Millisecond }

// shown is a PTTL to a tenth of a second, as a reason gives it: the same
// on every run.
func shown(pttl int64) time.Duration { return ms(pttl).Round(100 * time.Millisecond) }

// grantOwned finds the first grant whose first read, within its hold and
// before anyone else's commands, shows another client's value at the
// lock's keys and none of the grantee's (history.GrantOwned).
func grantOwned(tl []history.Event) (finding, bool) {
	hs := holds(tl)
	for _, g := range hs {
		if g.from >= g.to-serverTick || g.revived {
			// Granted once its TTL had run out, its holder holds nothing;
			// a late refresh's hold is no grant (OneHolder reads it).
			continue
		}
		for j := g.event + 1; j < len(tl); j++ {
			e := tl[j]
			if e.Kind == history.EvCommand && e.Client != g.client {
				break
			}
			if e.Kind != history.EvRead || e.Read == nil || len(e.Read.Keys) == 0 {
				continue
			}
			if !(e.At < g.to-serverTick) {
				break
			}
			var others []string
			own := false
			for _, k := range e.Read.Keys {
				switch o := k.Owner(); {
				case o == g.client:
					own = true
				case o != "" && !slices.Contains(others, o):
					others = append(others, o)
				}
			}
			if !own && len(others) > 0 {
				return finding{history.GrantOwned, j, mGrantNotOwned.New(g.client, others)}, true
			}
			break
		}
	}
	return finding{}, false
}

// fullLease finds the first read that shows K, with a valid holder's
// value, expiring before that hold's end (history.FullLease), with
// nobody else's commands since the holder's last call returned, the
// hold's end as the calls returned by then set it.
func fullLease(tl []history.Event) (finding, bool) {
	since := map[string]int{} // a client's last lock call's return
	for j, e := range tl {
		if returns(e.Kind) {
			since[e.Client] = j
		}
		if e.Kind != history.EvRead || e.Read == nil || len(e.Read.Keys) == 0 || e.Read.PTTL < 0 {
			continue
		}
		hs := holds(tl[:j]) // each hold's end as the calls so far set it
		x := ownerOf(tl, hs, j, e.Read.Keys[0])
		h, ok := validAt(hs, x, e.At, e.At)
		k, called := since[x]
		if x == "" || !ok || !called {
			continue
		}
		if who, _ := senders(tl, k, j); slices.ContainsFunc(who, func(c string) bool { return c != x }) {
			continue
		}
		if short := h.to - (e.At + ms(e.Read.PTTL)); short > leaseTolerance {
			return finding{history.FullLease, j, mLeaseShort.New(x, short.Round(time.Millisecond))}, true
		}
	}
	return finding{}, false
}

// What a call of another client did to a holder's lock: the judge's
// reasons, and the scenarios' that watch K around a call.
var (
	MsgDeleted = msg.Define("changed.deleted", msg.K(msg.Client, msg.Op, msg.Client),
		"{0}'s {1} deleted K, {2}'s lock")
	MsgDeletedKey = msg.Define("changed.deleted-key", msg.K(msg.Client, msg.Op, msg.Value, msg.Client),
		"{0}'s {1} deleted {2}, one of the keys of {3}'s lock")
	MsgOverwrote = msg.Define("changed.overwrote", msg.K(msg.Client, msg.Op, msg.Client),
		"{0}'s {1} overwrote K, {2}'s lock, with another value")
	mOverwroteKey = msg.Define("changed.overwrote-key", msg.K(msg.Client, msg.Op, msg.Value, msg.Client),
		"{0}'s {1} overwrote {2}, one of the keys of {3}'s lock, with another value")
	MsgExpiryRemoved = msg.Define("changed.expiry-removed", msg.K(msg.Client, msg.Op, msg.Client),
		"{0}'s {1} removed the expiry of K, {2}'s lock: should {2} die, the lock is never freed")
	MsgExpiryPushed = msg.Define("changed.expiry-pushed", msg.K(msg.Client, msg.Op, msg.Client, msg.Duration, msg.Duration),
		"{0}'s {1} pushed the expiry of K, {2}'s lock, back from {3} to {4}")

	mEntryRemoved = msg.Define("changed.entry-removed", msg.K(msg.Client, msg.Op, msg.Client, msg.Value),
		"{0}'s {1} removed {2}'s entry from {3}, one of the keys of the lock, while {2} held it")

	mGrantNotOwned = msg.Define("judge.grant-not-owned", msg.K(msg.Client, msg.Clients),
		"{0} was granted the lock, but the lock's keys held {1}'s value and none of its own")
	mLeaseShort = msg.Define("judge.lease-short", msg.K(msg.Client, msg.Duration),
		"K, {0}'s hold, expires {1} before the end of the TTL {0} asked for")
)
