package sim

import (
	"time"

	"github.com/locklab/locklab/locktest/internal/servererr"
	"github.com/locklab/locklab/locktest/internal/wire"
)

// faultState is the fault armed on a client's wire (fault.go): the
// commands counted since, the command it hit and what it did; and the
// commands listed while watching. Client.mu guards it.
type faultState struct {
	fault      Fault
	faultSeen  int
	faultCmd   *wire.Command
	faultHit   FaultKind
	faultUntil time.Time
	watching   bool
	seen       []SentCommand

	// lockCmds, while set, lists the commands on the lock's keys the
	// client sends (renew-after-release).
	lockCmds *[]lockCommand

	// state answers the client's commands as a server in the state of
	// an armed FaultState would (servererr), from its arming on.
	state *servererr.Conn
}

// FaultKind is what the suite does to the command a fault is armed for.
type FaultKind int

const (
	FaultNone    FaultKind = iota
	FaultReply             // answered with an error reply in Redis's place; never sent
	FaultLost              // runs on Redis; the connection drops before the reply
	FaultDropped           // the connection drops before it reaches Redis
	FaultLate              // runs; its reply is held until after the caller's deadline
	FaultState             // the server is in State from the At-th command until Until
)

// Fault is one fault the suite injects.
type Fault struct {
	Kind  FaultKind
	Reply string    // faultReply: the error reply, its code first ("LOADING ...")
	At    int       // the at-th command from when the fault is armed, from 1
	Until time.Time // faultLate: when the reply may go on; FaultState: when the state ends
	// FaultState: the server's state, in which every command it applies
	// to (servererr.State.Applies) gets its error reply, but those queued
	// inside MULTI and EXEC, which the proxy cannot abort.
	State servererr.State
}

// SentCommand is one command a client sent while the suite watched: its
// name and whether it was queued inside MULTI.
type SentCommand struct {
	Name    string
	Args    [][]byte // its name and arguments, as sent
	InMulti bool
}

// lockCommand is a command on the lock's keys a client sent: its name.
type lockCommand struct{ Name string }
