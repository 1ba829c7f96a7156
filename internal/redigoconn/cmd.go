package redigoconn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// Kind says how a string in a command's reply is typed in redigo: a status
// reply is a string, a bulk string a []byte. Clients other than redigo do
// not tell the two apart, so the kind comes from the command.
type Kind uint8

const (
	// Bulk: a string in the reply, at any depth, is a bulk string.
	Bulk Kind = iota
	// Status: the reply, when it is a string, is a status (OK, QUEUED,
	// PONG). Strings inside an array reply are bulk strings.
	Status
	// Exec: the reply is EXEC's array, whose elements have the kinds in
	// Cmd.Queued.
	Exec
)

// Cmd is one command as a strategy sent it: Args holds the command name
// first, then its arguments as given to redigo (see Arg).
type Cmd struct {
	Args   []any
	Kind   Kind
	Queued []Kind // for Exec: the kind of each command queued after MULTI
}

// Name returns the command name as sent.
func (c *Cmd) Name() string {
	s, _ := c.Args[0].(string)
	return s
}

// Text returns a string of a reply in redigo's type for the kind k: a
// []byte unless k is Status. Backends call it for the strings they get
// back.
func (k Kind) Text(s string) any {
	if k == Status {
		return s
	}
	return []byte(s)
}

// Elem returns the kind of the i-th element of the command's array reply.
func (c *Cmd) Elem(i int) Kind {
	if c.Kind == Exec && i < len(c.Queued) {
		return c.Queued[i]
	}
	return Bulk
}

// kindOf returns the kind of reply the command gives outside a
// transaction. Status commands are those whose reply Redis documents as a
// simple string; every other string reply is bulk.
func kindOf(name string, args []any) Kind {
	switch name {
	case "SET":
		// SET ... GET returns the old value, a bulk string.
		for _, a := range args[min(2, len(args)):] {
			if s, ok := a.(string); ok && strings.EqualFold(s, "GET") {
				return Bulk
			}
		}
		return Status
	case "PING":
		if len(args) == 0 {
			return Status
		}
		return Bulk
	case "EXEC":
		return Exec
	case "MULTI", "WATCH", "UNWATCH", "DISCARD", "SELECT", "AUTH", "QUIT", "RESET",
		"FLUSHDB", "FLUSHALL", "SWAPDB", "RENAME", "MSET", "SETEX", "PSETEX",
		"LSET", "LTRIM", "HMSET", "TYPE", "PFMERGE", "RESTORE", "MIGRATE",
		"READONLY", "READWRITE", "ASKING", "SAVE", "BGSAVE", "BGREWRITEAOF",
		"REPLICAOF", "SLAVEOF", "SHUTDOWN":
		return Status
	case "SCRIPT", "CONFIG", "CLIENT", "FUNCTION", "MEMORY", "CLUSTER", "XGROUP", "ACL":
		if len(args) > 0 {
			sub, _ := args[0].(string)
			if statusSub[name+" "+strings.ToUpper(sub)] {
				return Status
			}
		}
	}
	return Bulk
}

// statusSub holds the subcommands whose reply is a status.
var statusSub = map[string]bool{
	"SCRIPT FLUSH": true, "SCRIPT KILL": true,
	"CONFIG SET": true, "CONFIG RESETSTAT": true, "CONFIG REWRITE": true,
	"CLIENT SETNAME": true, "CLIENT SETINFO": true, "CLIENT KILL": true, "CLIENT PAUSE": true,
	"CLIENT UNPAUSE": true, "CLIENT REPLY": true, "CLIENT TRACKING": true,
	"CLIENT NO-EVICT": true, "CLIENT NO-TOUCH": true,
	"FUNCTION FLUSH": true, "FUNCTION DELETE": true, "FUNCTION KILL": true, "FUNCTION RESTORE": true,
	"MEMORY PURGE": true,
	"CLUSTER MEET": true, "CLUSTER FORGET": true, "CLUSTER ADDSLOTS": true, "CLUSTER ADDSLOTSRANGE": true,
	"CLUSTER DELSLOTS": true, "CLUSTER DELSLOTSRANGE": true, "CLUSTER SETSLOT": true,
	"CLUSTER REPLICATE": true, "CLUSTER FAILOVER": true, "CLUSTER FLUSHSLOTS": true,
	"CLUSTER SAVECONFIG": true, "CLUSTER RESET": true, "CLUSTER SET-CONFIG-EPOCH": true,
	"XGROUP CREATE": true, "XGROUP SETID": true,
	"ACL SETUSER": true, "ACL LOAD": true, "ACL SAVE": true,
}

// boxed holds the names of common commands as interface values, made
// once: a command name from a variable would be copied to the heap each
// time it is put in Cmd.Args.
var boxed = func() map[string]any {
	m := map[string]any{}
	for _, n := range []string{"SET", "GET", "DEL", "EVALSHA", "EVAL", "SETNX", "GETSET", "EXPIRE",
		"PEXPIRE", "TTL", "PTTL", "EXISTS", "PING", "PUBLISH", "WATCH", "UNWATCH", "MULTI", "EXEC",
		"DISCARD", "INCR", "SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE", "PUNSUBSCRIBE"} {
		m[n] = n
	}
	return m
}()

// boxName returns name as an interface value, without copying it when it
// is a common command's.
func boxName(name string) any {
	if v, ok := boxed[name]; ok {
		return v
	}
	return name
}

// Stateful commands change the state of the connection they are sent on, so
// the commands after them must go to the same connection.
func stateful(name string) bool {
	switch name {
	case "WATCH", "MULTI":
		return true
	}
	return false
}

// pubSub reports whether a command belongs to a subscribed connection.
func pubSub(name string) bool {
	switch name {
	case "SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE", "PUNSUBSCRIBE":
		return true
	}
	return false
}

// Arg returns a command argument in one of the types every client writes as
// redigo does: string, []byte, an integer, bool or nil. A float becomes the
// string redigo writes, a redis.Argument its RedisArg, anything else the
// text fmt.Print gives it.
func Arg(a any) any {
	switch v := a.(type) {
	case string, []byte, int, int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8, bool, nil:
		return a
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 64)
	case redis.Argument:
		return Arg(v.RedisArg())
	}
	return fmt.Sprint(a)
}

// ArgString returns a command argument as the string redigo would write.
func ArgString(a any) string {
	switch v := a.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		if v {
			return "1"
		}
		return "0"
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 64)
	case redis.Argument:
		return ArgString(v.RedisArg())
	}
	return fmt.Sprint(a)
}
