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
// fs.FS. For a token lock (SET key <unique token> NX PX ttl, released only
// while it still holds its token) this passes as written:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
//	func TestConformance(t *testing.T) {
//		newLock := func(c locktest.Client) (strategy.Strategy, error) {
//			return mylock.New(c.Pool) // read the time from c.Clock, if your lock reads it
//		}
//		locktest.Run(t, newLock, locktest.Expect{
//			Breaks: []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
//		})
//	}
//
// The three overrun properties break on every TTL lock that neither renews
// itself nor carries fencing tokens. docs/your-own-lock.md goes through a
// first run, a break, its counterexample and the fix.
//
// Run takes Redis from package redistest (REDIS_ADDR, Docker, or a
// redis-server on PATH); RunConfig runs on the server a Config names.
// Both first run the Contract, then each property as a subtest named
// after it. A declared break the suite cannot reproduce fails, and so
// does an undeclared one, with its counterexample; the output then ends
// with the Expect literal that declares what the run observed.
// Expect.Strict makes n/a a verdict to declare too.
//
// Properties are those of a lock on one Redis that never fails;
// TopologyProperties start servers of their own, and run when asked for.
// A lock over several masters sets Config.Masters and gets Client.Pools.
//
// # How it works
//
// The suite never reaches inside a strategy. Each simulated client (A, B,
// ...) talks to Redis through a loopback proxy of its own (Client.Addr),
// whatever library or language sends the commands, so the suite records
// every command and reply, crashes a client after a chosen reply, holds
// or reorders its commands, and moves its clock (Client.Clock). Sleeps
// serve only real TTL expiry; everything else is ordered by gates, and
// every verdict is the same on every run. A break's Result carries its
// timeline, in which the key reads K and times t0±Δms.
//
// Check runs one property outside a test, for tools such as lockcheck.
// A watchdog bounds every check: a strategy that hangs, panics or fails
// unexpectedly yields a Result with Err set, never a hang.
package locktest
