// Package locktest is a conformance suite for Redis locks: it runs a lock
// strategy against a real Redis through a set of scenarios, the properties,
// and proves for each one whether the strategy keeps it (holds), breaks it
// (breaks, with the command timeline that shows how), or whether the
// scenario cannot arise for it (n/a).
//
// # Running it on your own strategy
//
// Implement strategy.Strategy and call Run from a test, declaring what your
// strategy is expected to break, the way testing/fstest.TestFS checks any
// fs.FS:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
//	func TestConformance(t *testing.T) {
//		newLock := func(pool strategy.Pool, clock strategy.Clock) (strategy.Strategy, error) {
//			return mylock.New(pool, mylock.WithClock(clock))
//		}
//		locktest.Run(t, newLock, locktest.Expect{
//			Breaks: []locktest.Property{locktest.HolderOverrun},
//		})
//	}
//
// Every property runs as a subtest named after it. Expectations are strict:
// a declared break that the suite cannot reproduce fails ("expected to
// break, but ..."), and an undeclared break fails with its counterexample.
// Redis comes from package redistest: REDIS_ADDR, or Docker, or a
// redis-server on PATH.
//
// # How faults are made deterministic
//
// The suite never reaches inside a strategy. It calls the Factory once per
// simulated client (A, B, C, ...) with a pool whose connections it wraps,
// and with the client's clock. Through them it can
//   - crash a client right after a chosen command returns: it sends nothing
//     more and its connections close;
//   - hold a client's commands until an event, or run several clients one
//     command at a time in an order it chooses, trying every interleaving of
//     their attempts (stale-takeover-race);
//   - move a client's clock ahead (clock-skew).
//
// Sleeps serve only real TTL expiry, with TTLs of tens of milliseconds. The
// critical section is watched by an exact detector that records who was
// inside when another client entered. A stale lock is made once per
// scenario and copied to each run with DUMP and RESTORE, so every
// interleaving starts from the same state. The verdicts are the same on
// every run.
//
// # Timelines
//
// Each break carries its counterexample: the ordered events of the run,
// every command a client sent with its reply, clock readings, crashes, and
// the critical section as the detector saw it. In a timeline the lock key
// reads K, and numbers that are times near the run's start read t0±Δms,
// where t0, the start in Unix milliseconds, is given by the first event.
//
// Check runs one property outside of a test, for tools such as lockcheck.
// A watchdog bounds every property: a strategy that hangs, panics or
// returns an unexpected error yields a Result with Err set, never a hang.
package locktest
