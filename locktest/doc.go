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
// The three overrun properties break on every lock with a TTL that neither
// renews itself nor carries fencing tokens: a holder whose work outlasts
// its TTL is still working when the next one starts. The module's own
// tests run this example, word for word, on such a lock (the package
// locktest/internal/mylock), and docs/your-own-lock.md in the repository
// goes through a first run, a break, its counterexample and the fix.
//
// Run takes Redis from package redistest; RunConfig runs the same on the
// Redis a Config names (Config.Addr), for a suite on a server of your
// choosing. Either one's first subtest, contract, makes the five checks of
// what every lock must do whatever its algorithm (Contract): refuse the
// empty key or lock it as any other, refuse a TTL of zero, leave no lock
// after a cancelled attempt, fail and not report a held lock when Redis is
// out of reach, and not overwrite a key of another type.
//
// Run checks Properties, those of a lock on one Redis that never fails.
// TopologyProperties (a failover, a restart without persistence, a
// server's clock jump, a minority of masters down) each start servers of
// their own, private redis-server processes, and run when asked for
// (Run with AllProperties); a lock over several independent
// masters, such as Redlock, says how many in Config.Masters and gets a
// pool on each in Client.Pools.
//
// Every property runs as a subtest named after it. A declared break that
// the suite cannot reproduce fails ("expected to break, but ..."), and an
// undeclared break fails with its counterexample. A property declared, or
// left, to hold that comes out n/a passes with its reason logged: the
// scenario cannot arise for the lock (there is no instant to crash at
// inside a one-command acquire). Expect.Strict makes n/a a verdict to
// declare, in Expect.NotApplicable, as the catalog's strategies do.
//
// When a verdict is not the declared one, the test's output ends, after
// every subtest, with the Expect literal that declares what the run
// observed: each break with a comment saying what it means and which
// subtest holds its counterexample (a failed one, or for a declared break
// one whose log go test -v prints). Read the counterexamples first; paste
// the literal only for the breaks you accept. ExpectFrom and
// Expect.Literal build it for tools. Redis comes from package redistest:
// REDIS_ADDR, or Docker, or a redis-server on PATH.
//
// # Capabilities
//
// A lock may offer more than Strategy and Lock; the suite finds out, and
// Run's first subtest, capabilities, lists what it found (Detect). Offer
//   - refresh by returning, from TryAcquire, a lock that implements
//     strategy.Refresher: Refresh(ctx, ttl) extends the lock while it is
//     still this holder's and returns strategy.ErrNotHeld otherwise.
//     safe-refresh then refreshes it late; without it, safe-refresh is n/a;
//   - a lease by returning a lock that implements strategy.Leased: Lease()
//     returns a context cancelled the moment the lock may be lost, while
//     the lock renews itself, and ok true. The suite's holders stop working
//     when it ends, which is what renewed-overrun and holder-overrun need
//     to hold;
//   - fencing tokens by returning a lock that implements strategy.Fenced:
//     FencingToken() returns a token that grows with every acquisition of
//     the key, by anyone, and ok true. fenced-overrun's resource refuses a
//     write with an older token;
//   - release notification by making the strategy (not the lock) implement
//     strategy.Notifier: Subscribe(ctx, key) returns a channel that
//     receives after each release, which strategy.Acquire waits on instead
//     of polling. A nil channel means notifications are off.
//
// A lock whose options change what it offers keeps one type: its Lease
// and FencingToken say whether the option is on (ok false when it is
// off), as strategy/luatoken's do.
//
// # How faults are made deterministic
//
// The suite never reaches inside a strategy. It calls the Factory once per
// simulated client (A, B, C, ...) with a Client: the address of a loopback
// proxy of the client's own between it and Redis, a strategy.Pool already
// dialing it, and the client's clock. Every command the client sends
// crosses the proxy, whatever library or language sends it (RESP2 or
// RESP3, pipelined or not, in MULTI or a script), so the suite can
//   - record every command and its reply, before the client reads it;
//   - crash a client right after a chosen reply: every connection of it is
//     cut, new ones are refused, and what the factory registered with
//     Client.OnCrash runs (to kill a process);
//   - hold a client's next command until an event, or run several clients
//     one command at a time in an order it chooses, trying every
//     interleaving of their attempts (stale-takeover-race, exclusion);
//   - fail a client's next command, as a dropped connection would;
//   - move a client's clock ahead (clock-skew), through Client.Clock, or
//     Client.Skew for a clock the suite cannot hand over (another process).
//
// A factory for another client library dials Client.Addr; one that starts
// something the connections do not end (a client, a process) registers
// its end with Client.Cleanup. Where Redis is, is Config.Addr (or
// Config.Dial); Run takes it from package redistest.
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
// where t0 is the run's start (Result.Start; Result.Key is K). Each event
// also carries its values typed (Event.Args, ReplyArgs, TextArgs), named
// as they are recorded: the key, a time, a script's digest, and a token,
// a value that one client alone wrote at the key (Result.Tokens lists
// them), whatever its format; renderers work from these, never from the
// text. Where a waiter's attempt failed and it tries again, an event says
// so ("not acquired"), so that each attempt's commands are known.
//
// Check runs one property outside of a test, for tools such as lockcheck.
// A watchdog bounds every property: a strategy that hangs, panics or
// returns an unexpected error yields a Result with Err set, never a hang.
package locktest
