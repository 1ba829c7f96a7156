package history

import "time"

// A scenario drives the clients and records what happened; it does not
// decide. Where it has something to say of the verdict it records a
// claim, an EvCheck event, and a judge decides from the whole history
// whether the claim stands: a claimed break the history does not show is
// no verdict, and a rule the scenario promised to keep is checked on
// every event, whatever the scenario concluded.

// Rule names what a claim asks the judge to find in the history.
type Rule string

// The rules.
const (
	// OneHolder: the valid holds never overlap, where the lock's kind
	// forbids it: an Exclusive hold overlaps no other client's, a Shared
	// one no other client's Exclusive one, and the Permit holds valid at
	// once take at most Check.Permits permits. A hold is valid from the
	// return of its grant (EvAcquired without Err) to the earliest of its
	// holder's next release call and its grant's call plus its TTL,
	// which each refresh that succeeded, if it returned while the hold
	// was valid, sets to the refresh's call plus its TTL (a refresh that
	// asks for less than was left shortens the hold); one of unknown
	// outcome may have, and shortens it to that, never lengthens it.
	// A lease that ends sooner only shortens a hold, so counting to the
	// TTL never calls a correct lock broken.
	OneHolder Rule = "one-holder"
	// OneInside: never two clients in the critical section at once
	// (EvEnter, EvLeave).
	OneInside Rule = "one-inside"
	// Unfreed: a lock that had to be free by Since was granted to
	// nobody for Within after it, while Client kept trying: its refusals
	// reach Since plus Within.
	Unfreed Rule = "unfreed"
	// FreeRefused: Client's last attempt was refused although no hold
	// that may have stood while it ran was in its way (a grant until its
	// TTL or its release, and one of unknown outcome, a lost reply or a
	// crash inside its acquire, too): none at all for an exclusive
	// attempt, no writer for a reader's, room among Check.Permits for a
	// semaphore's. The lock was free, for it, and did not say so.
	FreeRefused Rule = "free-refused"
	// Untouched: while a hold is valid, no other client's call changes
	// it: the holder's own value at a lock key stays, and K's expiry is
	// neither removed nor pushed back, between two reads of the suite
	// (EvRead) with nobody's commands between them but others'. What
	// else the lock keeps at its keys is bookkeeping, and anyone may
	// write it.
	Untouched Rule = "untouched"
	// GrantOwned: a grant is the lock: the suite's first read after it,
	// within its hold and before anyone else's commands, finds the
	// grantee's own value at a lock key, or no other client's.
	GrantOwned Rule = "grant-owned"
	// FullLease: the key a grant or refresh writes lives as long as the
	// TTL it asked for: read with the holder's value, it does not expire
	// before the hold's end.
	FullLease Rule = "full-lease"
	// FenceOrder: the fencing tokens grow with the grants (Event.Fence).
	// A grant that returned before another client's hold ended took
	// the lock before that hold's grant did (it cannot have taken it
	// while that hold stood), so its token is the smaller: else a
	// resource that keeps the highest token it saw lets the earlier
	// holder's late writes in after the later holder's, or shuts the
	// later holder out.
	FenceOrder Rule = "fence-order"
	// Observed: the scenario saw the property broken in a way no other
	// rule expresses (a key that outlived its TTL, a release that freed
	// nothing); the events before the claim are its evidence.
	Observed Rule = "observed"
	// Kept: the scenario found nothing broken; Reason says what it tried.
	Kept Rule = "kept"
	// Unstageable: the scenario could not arise for the lock (n/a).
	Unstageable Rule = "unstageable"
)

// Check is a scenario's claim about the history it recorded.
type Check struct {
	Rule Rule `json:"rule"`
	// Broken claims that Rule is broken, with Reason as the verdict's
	// reason; a OneHolder or OneInside claim that is not Broken promises
	// that the rule holds over the whole history.
	Broken bool     `json:"broken,omitempty"`
	Reason *Message `json:"reason,omitempty"`
	// Client, Since and Within are an Unfreed claim's: the waiter, and
	// the span it was refused over, in the run's time; Client is also
	// the one refused of a FreeRefused claim.
	Client string        `json:"client,omitempty"`
	Since  time.Duration `json:"since_ns,omitempty"`
	Within time.Duration `json:"within_ns,omitempty"`
	// Permits is a semaphore's: how many permits OneHolder allows at
	// once.
	Permits int `json:"permits,omitempty"`
}
