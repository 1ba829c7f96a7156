package sim

import "time"

// faultState is the fault armed on a client's wire (fault.go): the

// FaultKind is what the suite does to the command a fault is armed for.
type FaultKind int

// Fault is one fault the suite injects.
type Fault struct {
	Kind  FaultKind
	Reply string    // faultReply: the error reply, its code first ("LOADING ...")
	At    int       // the at-th command from when the fault is armed, from 1
	Until time.Time // faultLate: when the reply may go on
}

// SentCommand is one command a client sent while the suite watched: its
// name and whether it was queued inside MULTI.
type SentCommand struct {
	Name    string
	InMulti bool
}

// lockCommand is a command on the lock's keys a client sent: its name.
type lockCommand struct{ Name string }
