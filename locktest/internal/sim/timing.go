package sim

import "time"

// Timing is the time scale of a run: Timing, with what the scenarios
// derive from it.
type Timing struct {
	Granularity time.Duration
	Short       time.Duration
	Long        time.Duration
	Slack       time.Duration
	Poll        time.Duration
}

// WithDefaults fills the zero fields of t, and rounds its TTLs up to
// whole multiples of its granularity.
//
// The granularity is the smallest step in which the lock under test can
// express a TTL: a millisecond for a lock that sends PX, a second for one
// that sends EX or counts whole seconds. Every TTL the suite asks for is a
// whole multiple of it (a field given that is not one is rounded up to
// one), so that a lock never has to round what it is asked and no verdict
// is an artefact of rounding. A zero Granularity is the one the lock
// announces (strategy.Granular, or an -exec program's ready line), which
// Run, RunConfig and lockcheck adopt after Detect, else a millisecond.
//
// The defaults at a granularity g:
//
//	Short = 60ms rounded up to a multiple of g     (60ms at 1ms, 1s at 1s)
//	Long  = 5s rounded up to a multiple of g       (5s)
//	Slack = the larger of 500ms and g               (500ms at 1ms, 1s at 1s)
//	Poll  = the larger of 5ms and g/200             (5ms)
func (t Timing) WithDefaults() Timing {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Granularity, time.Millisecond)
	def(&t.Short, 60*time.Millisecond)
	def(&t.Long, 5*time.Second)
	def(&t.Slack, max(500*time.Millisecond, t.Granularity))
	def(&t.Poll, max(5*time.Millisecond, t.Granularity/200))
	t.Short, t.Long = t.ttl(t.Short), t.ttl(t.Long)
	return t
}

// ttl rounds d up to a whole multiple of the granularity, one at least:
// the TTL the suite asks for where a scenario wants about d.
func (t Timing) ttl(d time.Duration) time.Duration {
	g := max(t.Granularity, time.Millisecond)
	return max(g, (d+g-1)/g*g)
}

// RenewedTTL is the TTL of renewed-overrun's holder: long enough that a renewal
// every third of it, and the detector's bookkeeping, are far inside it.
func (t Timing) RenewedTTL() time.Duration { return 5 * t.Short }

// KeptShort is the TTL of lease-kept's late probes: a tenth of its TTL,
// as a whole multiple of the granularity.
func (t Timing) KeptShort() time.Duration { return t.ttl(t.Kept() / 10) }

// RefreshedRecoveryTTL is the TTL crash-recovery's refreshed round takes
// its lock for and refreshes it to: the slack and two Short TTLs, as a
// whole multiple of the granularity. A refresh that adds it to what the
// key has left makes the key outlive the wait of that TTL and the slack.
func (t Timing) RefreshedRecoveryTTL() time.Duration { return t.ttl(t.Slack + 2*t.Short) }

// Kept is the holder's TTL in lease-kept: long enough for many probes.
func (t Timing) Kept() time.Duration { return 5 * t.Short }

// KeptTolerance is how long before the end of lease-kept's TTL its probes
// stop: a tenth of the TTL, and at least a third of Short.
func (t Timing) KeptTolerance() time.Duration { return max(t.Kept()/10, t.Short/3) }

// StaleAfter is how long past its TTL a lock is waited on before it is
// called stale: timestamps count whole milliseconds and clocks tick apart.
func (t Timing) StaleAfter() time.Duration { return t.Short / 3 }

// Outlast is an interval between a waiter's attempts just longer than ttl:
// a key that each attempt sets to ttl (an acquire that writes even when it
// fails) can expire between two of them.
func (t Timing) Outlast(ttl time.Duration) time.Duration { return ttl + 2*t.Poll }

// Quick is how long an attempt may take and still be a fair one: half
// of Short.
func (t Timing) Quick() time.Duration { return t.Short / 2 }
