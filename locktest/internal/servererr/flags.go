package servererr

import "strings"

// Flag is one of a command's flags, as COMMAND INFO names them. The ones
// the server's checks read (processCommand in server.c) decide which
// states a command meets.
type Flag uint32

const (
	CmdWrite           Flag = 1 << iota // may change the dataset
	CmdReadOnly                         // reads the dataset and nothing else
	CmdDenyOOM                          // may grow memory: refused past maxmemory
	CmdAdmin                            // administrative
	CmdPubSub                           // publish/subscribe
	CmdNoScript                         // not allowed inside a script
	CmdBlocking                         // may block the client
	CmdLoading                          // allowed while the dataset loads
	CmdStale                            // allowed on a replica whose master link is down
	CmdSkipMonitor                      // not shown to MONITOR
	CmdSkipSlowlog                      // not logged by the slow log
	CmdFast                             // O(1) or O(log N)
	CmdNoAuth                           // allowed before AUTH
	CmdNoMandatoryKeys                  // may be given no keys
	CmdMovableKeys                      // keys found by parsing the arguments
	CmdAllowBusy                        // allowed while a script or function is busy
)

// flagNames are the names COMMAND INFO gives, in the order of the
// constants.
var flagNames = [...]string{
	"write", "readonly", "denyoom", "admin", "pubsub", "noscript",
	"blocking", "loading", "stale", "skip_monitor", "skip_slowlog", "fast",
	"no_auth", "no_mandatory_keys", "movablekeys", "allow_busy",
}

// String lists the flags by their COMMAND INFO names, space separated.
func (f Flag) String() string {
	var b strings.Builder
	for i, n := range flagNames {
		if f&(1<<i) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n)
	}
	return b.String()
}

// ParseFlag returns the flag COMMAND INFO names name; ok is false for a
// flag this package does not know (may_replicate, module, asking...).
func ParseFlag(name string) (f Flag, ok bool) {
	for i, n := range flagNames {
		if strings.EqualFold(n, name) {
			return 1 << i, true
		}
	}
	return 0, false
}
