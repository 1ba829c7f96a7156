package harness

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// Keys a lock did not declare. The suite judges a lock by what it reads at
// K, or at the keys the strategy names (strategy.Keyed). What the lock's
// commands wrote, read from the wire, says whether that is where the lock
// is: a lock that never wrote them but wrote other keys (rueidislock
// wrapped without Keyed writes rueidislock:<i>:K) would be judged on a key
// it does not use, and the check says so instead of giving a verdict; a
// key written besides K (Symfony's probe, symfony_check_support_time; a
// counter of fencing tokens) is named in a note, and judged on nothing,
// unless the strategy declares it beside its state (strategy.SideKeyed):
// then it is the lock's own, and still judged on nothing.

// WrittenKeys returns the positions of the keys that a command writes, in
// args (args[0] its name, upper-cased in name): the key of the commands
// that set, change, expire or delete one key; every key of DEL, UNLINK,
// MSET and RENAME; and the keys a script or function is called with,
// after their number (a script may only read a key: whatever it names, it
// may write).
func WrittenKeys(name string, args []history.Arg) []int {
	n := len(args)
	switch name {
	case "SET", "SETNX", "GETSET", "SETEX", "PSETEX", "GETDEL", "APPEND", "SETRANGE",
		"INCR", "INCRBY", "INCRBYFLOAT", "DECR", "DECRBY",
		"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "PERSIST", "RESTORE",
		"HSET", "HSETNX", "HMSET", "HDEL", "HINCRBY", "HINCRBYFLOAT",
		"ZADD", "ZREM", "ZINCRBY", "ZREMRANGEBYSCORE", "ZREMRANGEBYRANK",
		"SADD", "SREM", "LPUSH", "RPUSH", "LPOP", "RPOP":
		if n > 1 {
			return []int{1}
		}
	case "GETEX": // a write only with an expiry option
		if n > 2 {
			return []int{1}
		}
	case "DEL", "UNLINK", "RENAME", "RENAMENX":
		var out []int
		for i := 1; i < n; i++ {
			out = append(out, i)
		}
		return out
	case "MSET", "MSETNX":
		var out []int
		for i := 1; i < n; i += 2 {
			out = append(out, i)
		}
		return out
	case "EVAL", "EVALSHA", "FCALL":
		if n < 3 {
			return nil
		}
		k, err := strconv.Atoi(args[2].Text)
		if err != nil || k < 0 || 3+k > n {
			return nil
		}
		var out []int
		for i := 3; i < 3+k; i++ {
			out = append(out, i)
		}
		return out
	}
	return nil
}

// keysWritten says what the clients' commands of the run wrote: own, a
// key the suite reads (K, or one the strategy names), and the other keys,
// as the timeline writes them (K for the run's key), each marked true
// when it has the run's key in its name.
func keysWritten(r *Run, others map[string]bool) (own bool) {
	side := sideKeys(r)
	for _, e := range r.Rec.Events() {
		if e.Kind != history.EvCommand || e.Client == "" || len(e.Command) == 0 {
			continue
		}
		for _, i := range WrittenKeys(strings.ToUpper(e.Command[0].Text), e.Command) {
			switch a := e.Command[i]; {
			case a.Kind == history.ArgKey, a.Kind == history.ArgLockKey:
				own = true
			case slices.ContainsFunc(side, func(p string) bool { return matchKey(p, a.Text) }):
				// A key the lock declares beside its state.
			default:
				others[strings.ReplaceAll(a.Text, r.Key, "K")] = strings.Contains(a.Text, r.Key)
			}
		}
	}
	return own
}

// sideKeys are the names of the keys the lock of r writes beside its
// state (strategy.SideKeyed), from the first client's strategy.
func sideKeys(r *Run) []string {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	for _, c := range r.Clients {
		if c.S == nil {
			continue
		}
		if s, ok := c.S.(strategy.SideKeyed); ok {
			return s.SideKeys(r.Key)
		}
		return nil
	}
	return nil
}

// matchKey says whether key matches pattern, a name a lock declares
// (strategy.SideKeyed) in which each * stands for any text, the empty
// text too: "{K}:*:rwlock_timeout*" for the keys of a lock that draws its
// holders' ids.
func matchKey(pattern, key string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == key
	}
	if !strings.HasPrefix(key, parts[0]) {
		return false
	}
	key = key[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(key, p)
		if i < 0 {
			return false
		}
		key = key[i+len(p):]
	}
	return len(key) >= len(last) && strings.HasSuffix(key, last)
}

// DeclareKeys adds to res what the lock's commands wrote in the runs of a
// check, when they wrote keys the suite does not read. When none of them
// wrote K (or a key the strategy names), the lock lives elsewhere: under
// the keys written that have K in their name (rueidislock:0:K), or, when
// none has, under those written. A verdict that read K then rests on a
// key the lock does not use, and becomes no verdict, which names those
// keys and says what to do; one that read nothing there keeps a note that
// says the same. The other keys written besides (a probe, a counter) are
// named in a note.
func DeclareKeys(res Outcome, runs []*Run) Outcome {
	own, read := false, false
	others := map[string]bool{}
	for _, r := range runs {
		own = keysWritten(r, others) || own
		r.Mu.Lock()
		read = read || r.keysRead
		r.Mu.Unlock()
	}
	var state, outside []string
	for _, k := range slices.Sorted(maps.Keys(others)) {
		if others[k] && !own {
			state = append(state, k)
		} else {
			outside = append(outside, k)
		}
	}
	if !own && len(state) == 0 {
		state, outside = outside, nil
	}
	if len(outside) > 0 {
		res.Notes = append(res.Notes, mKeysOutside.New(keyList(outside)))
	}
	if len(state) == 0 {
		return res
	}
	m := mKeysUndeclared.New(keyList(state))
	if !read || res.Err != nil {
		res.Notes = append(res.Notes, m)
		return res
	}
	res = Outcome{Err: errors.New(m.String()), Timeline: res.Timeline, Key: res.Key, Start: res.Start, Tokens: res.Tokens, Notes: res.Notes}
	if res.Timeline == nil {
		// The commands that wrote those keys.
		res = runs[len(runs)-1].Counterexample(res)
	}
	return res
}

// keyList writes keys for a message: the first few, then how many in all.
func keyList(keys []string) string {
	const most = 4
	if len(keys) > most {
		return fmt.Sprintf("%s, … (%d)", strings.Join(keys[:most], ", "), len(keys))
	}
	return strings.Join(keys, ", ")
}

// The keys' messages.
var (
	mKeysUndeclared = msg.Define("keys.undeclared", msg.K(msg.Text),
		"the lock wrote {0}, not K: declare its keys (strategy.Keyed in Go, keys= on an -exec program's ready line; docs/your-own-lock.md)")
	mKeysOutside = msg.Define("keys.outside", msg.K(msg.Text),
		"the lock also wrote {0}, outside its own keys: named here, judged on nothing")
)
