package servererr

import "fmt"

// State is a state a Redis server goes through, during which it refuses
// some commands with an error reply: the ones whose flags the state's
// check reads. A state lasts: once on, it answers every command it
// applies to until it ends.
type State int

const (
	// Loading: the server loads its dataset (at start, or a replica
	// in a full sync); commands without the loading flag get LOADING.
	Loading State = iota + 1
	// Busy: a script run with EVAL has run past busy-reply-threshold;
	// commands without the allow_busy flag get BUSY until it ends or is
	// killed. Past maxmemory, the server does not refuse anything for
	// memory meanwhile.
	Busy
	// BusyFunction: the same, for a function run with FCALL; the reply
	// names FUNCTION KILL.
	BusyFunction
	// MasterDown: the client talks to a read-only replica whose link to
	// its master is down, with replica-serve-stale-data no. A write gets
	// READONLY (the server checks it first); other commands without the
	// stale flag get MASTERDOWN; a script without a shebang gets
	// MASTERDOWN before it runs.
	MasterDown
	// OOM: used memory is past maxmemory and nothing can be evicted
	// (noeviction). Commands that may grow memory (denyoom) get OOM; a
	// script without a shebang gets it at its first write, when that
	// write may grow memory; before 7.4, every command queued inside
	// MULTI gets it.
	OOM
	// ScriptsFlushed: the script cache was emptied (SCRIPT FLUSH, a
	// restart, a replica promoted that never ran the script): EVALSHA
	// gets NOSCRIPT until the script is sent again with EVAL or SCRIPT
	// LOAD.
	ScriptsFlushed
	// DiskError: the last background save failed, with
	// stop-writes-on-bgsave-error yes (the default) and save points
	// set: writes, and PING, get MISCONF; a script without shebang gets
	// it at its first write.
	DiskError
	// NoReplicas: fewer replicas than min-replicas-to-write are in
	// reach: writes get NOREPLICAS; a script without shebang gets it
	// at its first write.
	NoReplicas
)

// States lists every state, in the order of the constants.
var States = []State{Loading, Busy, BusyFunction, MasterDown, OOM, ScriptsFlushed, DiskError, NoReplicas}

func (s State) String() string {
	switch s {
	case Loading:
		return "loading"
	case Busy:
		return "busy"
	case BusyFunction:
		return "busy-function"
	case MasterDown:
		return "master-down"
	case OOM:
		return "oom"
	case ScriptsFlushed:
		return "scripts-flushed"
	case DiskError:
		return "disk-error"
	case NoReplicas:
		return "no-replicas"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// The error replies, code first, as the server writes them (the shared
// objects of createSharedObjects, server.c).
const (
	ReplyLoading      = "LOADING Redis is loading the dataset in memory"
	ReplyBusy         = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ReplyBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	ReplyMasterDown   = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	ReplyReadOnly     = "READONLY You can't write against a read only replica."
	ReplyOOM          = "OOM command not allowed when used memory > 'maxmemory'."
	ReplyNoScript     = "NOSCRIPT No matching script. Please use EVAL."
	ReplyExecAbort    = "EXECABORT Transaction discarded because of previous errors."
	ReplyMisconf      = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
	ReplyNoReplicas   = "NOREPLICAS Not enough good replicas to write."
)

// execAbort is EXEC's reply when the server refuses EXEC itself: the
// transaction is discarded, and the reply says why (execCommandAbort,
// multi.c).
func execAbort(reason string) string {
	return "EXECABORT Transaction discarded because of: " + reason
}
