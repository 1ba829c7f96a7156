package trace

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/locklab/locklab/history"
)

// Recorder keeps a scenario's timeline, and what it needs to name the
// values in it when the timeline is taken: who wrote which value at the
// key, and which scripts' digests were seen.
type Recorder struct {
	mu      sync.Mutex
	Start   time.Time
	events  []history.Event
	writers map[string][]string // a value written at the key: the clients that wrote it, in order
	digests map[string]bool
	calls   map[string]call // a client's lock call under way
}

// call is a lock call under way: when it began, and the TTL it asked for
// (0 for a release).
type call struct{ at, ttl time.Duration }

// Begin notes that client's lock call asking for ttl (0 for a release)
// begins now, and returns the time: a crash of client before the call
// returns gives them in its event (history.EvCrash's Call and TTL), so
// that a judge knows the call's outcome is unknown.
func (r *Recorder) Begin(client string, ttl time.Duration) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := time.Since(r.Start)
	if r.calls == nil {
		r.calls = map[string]call{}
	}
	r.calls[client] = call{at, ttl}
	return at
}

// InCall is when client's lock call under way began (Begin); 0 when
// none is.
func (r *Recorder) InCall(client string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[client].at
}

// Wrote notes that client wrote value at the key: a token if it is the
// only one that ever does.
func (r *Recorder) Wrote(simClient, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writers == nil {
		r.writers = map[string][]string{}
	}
	if !slices.Contains(r.writers[value], simClient) {
		r.writers[value] = append(r.writers[value], simClient)
	}
}

// Digest notes that d is a script's digest.
func (r *Recorder) Digest(d string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.digests == nil {
		r.digests = map[string]bool{}
	}
	r.digests[d] = true
}

// Timeline returns the events so far with their values named: a text that
// exactly one client wrote at the key becomes its token, one that is a
// known digest a digest; and the tokens of each client, in the order it
// wrote them.
func (r *Recorder) Timeline() ([]history.Event, map[string][]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	owner := map[string]string{}
	var tokens map[string][]string
	for _, e := range r.events {
		for _, a := range e.Command {
			w := r.writers[a.Text]
			if a.Kind != history.ArgText || len(w) != 1 || w[0] != e.Client || owner[a.Text] != "" {
				continue
			}
			owner[a.Text] = e.Client
			if tokens == nil {
				tokens = map[string][]string{}
			}
			tokens[e.Client] = append(tokens[e.Client], a.Text)
		}
	}
	// A token written outside the timeline (a stale lock's) is still its
	// writer's.
	for _, v := range slices.Sorted(maps.Keys(r.writers)) {
		if w := r.writers[v]; len(w) == 1 && owner[v] == "" {
			owner[v] = w[0]
			if tokens == nil {
				tokens = map[string][]string{}
			}
			tokens[w[0]] = append(tokens[w[0]], v)
		}
	}
	name := func(args []history.Arg) []history.Arg {
		if args == nil {
			return nil
		}
		out := slices.Clone(args)
		for i, a := range out {
			if a.Kind != history.ArgText {
				continue
			}
			if c := owner[a.Text]; c != "" {
				out[i] = history.Arg{Kind: history.ArgToken, Text: a.Text, Client: c}
			} else if r.digests[a.Text] {
				out[i] = history.Arg{Kind: history.ArgDigest, Text: a.Text}
			}
		}
		return out
	}
	out := make([]history.Event, len(r.events))
	for i, e := range r.events {
		e.Command, e.Reply = name(e.Command), name(e.Reply)
		if e.Read != nil {
			rd := *e.Read
			rd.Keys = slices.Clone(rd.Keys)
			for j, k := range rd.Keys {
				if k.Value != nil {
					v := name([]history.Arg{*k.Value})[0]
					rd.Keys[j].Value = &v
				}
				rd.Keys[j].Entries = name(k.Entries)
			}
			e.Read = &rd
		}
		out[i] = e
	}
	return out, tokens
}

// Now is the time since the run began.
func (r *Recorder) Now() time.Duration { return time.Since(r.Start) }

func (r *Recorder) Add(e history.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.At = time.Since(r.Start)
	if m, ok := history.Said(e.Kind); ok && e.Msg == nil && e.Err == "" {
		e.Msg = &m
	}
	switch e.Kind {
	case history.EvAcquired, history.EvReleased, history.EvRefreshed:
		delete(r.calls, e.Client)
	case history.EvNotAcquired:
		if e.Call > 0 {
			delete(r.calls, e.Client) // not an attempt the call retries
		}
	case history.EvCrash:
		if c, ok := r.calls[e.Client]; ok {
			e.Call, e.TTL = c.at, c.ttl
			delete(r.calls, e.Client)
		}
	}
	r.events = append(r.events, e)
}

// Read records what the suite read of the lock's keys: a value that
// exactly one client wrote becomes its token when the timeline is taken.
func (r *Recorder) Read(rd history.Read) {
	r.Add(history.Event{Kind: history.EvRead, Read: &rd})
}

// Forget drops the events so far: what a scenario did to set itself up,
// which says nothing of the verdict (a client's warm-up on a key of its
// own).
func (r *Recorder) Forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events, r.calls = nil, nil
}

// Events returns the events recorded so far, in order.
func (r *Recorder) Events() []history.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// WritersOf returns the clients that wrote the value a, as the timeline
// types it, at the lock's keys; nil when it is not a text of theirs.
func (r *Recorder) WritersOf(a history.Arg) []string {
	if a.Kind != history.ArgText {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.writers[a.Text])
}
