package servererr

import "strings"

// table holds each command's flags as COMMAND INFO reports them on Redis
// 7.0, keyed by the lowercase name, a container's subcommand as
// "client|setname"; changes says what later versions changed (their
// src/commands/*.json, 7.0.15 to 7.4.1). TestTableMatchesServer reads
// COMMAND INFO on a real server and fails where they differ.
var table = map[string]Flag{
	// Strings.
	"set":    CmdWrite | CmdDenyOOM,
	"setnx":  CmdWrite | CmdDenyOOM | CmdFast,
	"setex":  CmdWrite | CmdDenyOOM,
	"psetex": CmdWrite | CmdDenyOOM,
	"getset": CmdWrite | CmdDenyOOM | CmdFast,
	"getdel": CmdWrite | CmdFast,
	"getex":  CmdWrite | CmdFast,
	"get":    CmdReadOnly | CmdFast,
	"mget":   CmdReadOnly | CmdFast,
	"incr":   CmdWrite | CmdDenyOOM | CmdFast,
	"decr":   CmdWrite | CmdDenyOOM | CmdFast,
	"incrby": CmdWrite | CmdDenyOOM | CmdFast,
	"decrby": CmdWrite | CmdDenyOOM | CmdFast,

	// Keys.
	"del":       CmdWrite,
	"unlink":    CmdWrite | CmdFast,
	"exists":    CmdReadOnly | CmdFast,
	"expire":    CmdWrite | CmdFast,
	"pexpire":   CmdWrite | CmdFast,
	"expireat":  CmdWrite | CmdFast,
	"pexpireat": CmdWrite | CmdFast,
	"persist":   CmdWrite | CmdFast,
	"ttl":       CmdReadOnly | CmdFast,
	"pttl":      CmdReadOnly | CmdFast,

	// Hashes.
	"hset":    CmdWrite | CmdDenyOOM | CmdFast,
	"hsetnx":  CmdWrite | CmdDenyOOM | CmdFast,
	"hget":    CmdReadOnly | CmdFast,
	"hmget":   CmdReadOnly | CmdFast,
	"hgetall": CmdReadOnly,
	"hdel":    CmdWrite | CmdFast,
	"hincrby": CmdWrite | CmdDenyOOM | CmdFast,
	"hexists": CmdReadOnly | CmdFast,
	"hlen":    CmdReadOnly | CmdFast,

	// Sorted sets.
	"zadd":             CmdWrite | CmdDenyOOM | CmdFast,
	"zrem":             CmdWrite | CmdFast,
	"zrange":           CmdReadOnly,
	"zrangebyscore":    CmdReadOnly,
	"zcard":            CmdReadOnly | CmdFast,
	"zscore":           CmdReadOnly | CmdFast,
	"zrank":            CmdReadOnly | CmdFast,
	"zremrangebyscore": CmdWrite,
	"zremrangebyrank":  CmdWrite,

	// Sets and lists.
	"sadd":       CmdWrite | CmdDenyOOM | CmdFast,
	"srem":       CmdWrite | CmdFast,
	"scard":      CmdReadOnly | CmdFast,
	"sismember":  CmdReadOnly | CmdFast,
	"smembers":   CmdReadOnly,
	"lpush":      CmdWrite | CmdDenyOOM | CmdFast,
	"rpush":      CmdWrite | CmdDenyOOM | CmdFast,
	"lrem":       CmdWrite,
	"lpop":       CmdWrite | CmdFast,
	"rpop":       CmdWrite | CmdFast,
	"llen":       CmdReadOnly | CmdFast,
	"lrange":     CmdReadOnly,
	"blpop":      CmdWrite | CmdNoScript | CmdBlocking,
	"brpoplpush": CmdWrite | CmdDenyOOM | CmdNoScript | CmdBlocking,

	// Transactions.
	"watch":   CmdNoScript | CmdLoading | CmdStale | CmdFast | CmdAllowBusy,
	"unwatch": CmdNoScript | CmdLoading | CmdStale | CmdFast | CmdAllowBusy,
	"multi":   CmdNoScript | CmdLoading | CmdStale | CmdFast | CmdAllowBusy,
	"exec":    CmdNoScript | CmdLoading | CmdStale | CmdSkipSlowlog,
	"discard": CmdNoScript | CmdLoading | CmdStale | CmdFast | CmdAllowBusy,

	// Scripts and functions: the flags of the command; a script or a
	// function that declares flags changes them (see Command.Flags).
	"eval":          CmdNoScript | CmdStale | CmdSkipMonitor | CmdNoMandatoryKeys | CmdMovableKeys,
	"evalsha":       CmdNoScript | CmdStale | CmdSkipMonitor | CmdNoMandatoryKeys | CmdMovableKeys,
	"eval_ro":       CmdReadOnly | CmdNoScript | CmdStale | CmdSkipMonitor | CmdNoMandatoryKeys | CmdMovableKeys,
	"evalsha_ro":    CmdReadOnly | CmdNoScript | CmdStale | CmdSkipMonitor | CmdNoMandatoryKeys | CmdMovableKeys,
	"script|load":   CmdNoScript | CmdStale,
	"script|exists": CmdNoScript,
	"script|flush":  CmdNoScript,
	"script|kill":   CmdNoScript | CmdAllowBusy,
	"fcall":         CmdNoScript | CmdStale | CmdSkipMonitor | CmdNoMandatoryKeys | CmdMovableKeys,
	"fcall_ro":      CmdReadOnly | CmdNoScript | CmdStale | CmdSkipMonitor | CmdNoMandatoryKeys | CmdMovableKeys,
	"function|load": CmdWrite | CmdDenyOOM | CmdNoScript,
	"function|kill": CmdNoScript | CmdAllowBusy,

	// Server, connection and publish/subscribe.
	"wait":            CmdNoScript,
	"info":            CmdLoading | CmdStale,
	"publish":         CmdPubSub | CmdLoading | CmdStale | CmdFast,
	"subscribe":       CmdPubSub | CmdNoScript | CmdLoading | CmdStale,
	"unsubscribe":     CmdPubSub | CmdNoScript | CmdLoading | CmdStale,
	"psubscribe":      CmdPubSub | CmdNoScript | CmdLoading | CmdStale,
	"punsubscribe":    CmdPubSub | CmdNoScript | CmdLoading | CmdStale,
	"ping":            CmdFast,
	"echo":            CmdLoading | CmdStale | CmdFast,
	"time":            CmdLoading | CmdStale | CmdFast,
	"select":          CmdLoading | CmdStale | CmdFast,
	"auth":            CmdNoScript | CmdLoading | CmdStale | CmdFast | CmdNoAuth | CmdAllowBusy,
	"hello":           CmdNoScript | CmdLoading | CmdStale | CmdFast | CmdNoAuth | CmdAllowBusy,
	"quit":            CmdNoScript | CmdLoading | CmdStale | CmdFast | CmdNoAuth | CmdAllowBusy,
	"reset":           CmdNoScript | CmdLoading | CmdStale | CmdFast | CmdNoAuth | CmdAllowBusy,
	"client|setname":  CmdNoScript | CmdLoading | CmdStale,
	"client|getname":  CmdNoScript | CmdLoading | CmdStale,
	"client|id":       CmdNoScript | CmdLoading | CmdStale,
	"client|info":     CmdNoScript | CmdLoading | CmdStale,
	"client|kill":     CmdAdmin | CmdNoScript | CmdLoading | CmdStale,
	"client|reply":    CmdNoScript | CmdLoading | CmdStale,
	"client|tracking": CmdNoScript | CmdLoading | CmdStale,
	"client|no-evict": CmdAdmin | CmdNoScript | CmdLoading | CmdStale,
}

// changes are the flags versions after 7.0 changed, or the commands
// they added. None changes what a state refuses.
var changes = []struct {
	name  string
	since Version
	flags Flag
}{
	{"blpop", Version{7, 2}, CmdWrite | CmdBlocking}, // allowed in scripts
	{"brpoplpush", Version{7, 2}, CmdWrite | CmdDenyOOM | CmdBlocking},
	{"wait", Version{7, 2}, 0},
	{"wait", Version{7, 4}, CmdBlocking},
	{"client|setinfo", Version{7, 2}, CmdNoScript | CmdLoading | CmdStale}, // new
}

// entry is what the package knows of one command's flags.
type entry struct {
	flags Flag // on 7.0
	in70  bool // 7.0 has the command
	later []int
}

// at returns the command's flags on version v.
func (e *entry) at(v Version) (f Flag, ok bool) {
	f, ok = e.flags, e.in70
	for _, i := range e.later {
		if c := changes[i]; v.atLeast(c.since) {
			f, ok = c.flags, true
		}
	}
	return f, ok
}

// entries are the table and its changes by name, lowercase and in
// capitals, as clients mostly send them, so that looking a command up
// costs no lowering.
var entries = func() map[string]*entry {
	m := map[string]*entry{}
	get := func(name string) *entry {
		e := m[name]
		if e == nil {
			e = &entry{}
			m[name], m[strings.ToUpper(name)] = e, e
		}
		return e
	}
	for name, f := range table {
		e := get(name)
		e.flags, e.in70 = f, true
	}
	for i, c := range changes {
		e := get(c.name)
		e.later = append(e.later, i)
	}
	return m
}()

// containers are the commands of the table that take a subcommand.
var containers = map[string]bool{"client": true, "script": true, "function": true}
