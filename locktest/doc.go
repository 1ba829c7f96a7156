// Package locktest is a conformance suite for Redis locks: it runs a lock
// through scenarios, the properties, on a real Redis, and finds for each
// whether it holds, breaks (with the timeline that shows how) or is n/a.
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
// A declared break the suite cannot reproduce fails, and so does an
// undeclared one. Check runs one property; Explore, generated runs.
//
// Each simulated client talks to Redis through a proxy of its own
// (Client.Addr), whatever its language, where the suite records, holds,
// reorders and fails its commands.
package locktest
