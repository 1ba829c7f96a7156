// Package bench measures locklab's lock strategies against the floor that
// any Redis lock must pay (one round trip to acquire, one to release) and
// against two widely used Go locks, redsync and redislock, in one run
// against one server; luatoken is measured on a redigo pool and through the
// go-redis and rueidis adapters (adapters/goredispool, adapters/rueidispool).
//
// It is a module of its own so that users of locklab never download the
// peers. Two ways to run it:
//
//	cd bench && go run ./cmd/lockbench        # the full report, as in docs/performance.md
//	cd bench && go test -bench . -benchmem    # the same cycles as Go benchmarks
//
// Both find Redis with redistest.Start: REDIS_ADDR, Docker, or a private
// redis-server process (LOCKLAB_REDIS=process forces the last).
//
// Every figure is measured through the client a user of that lock would
// hold: a redigo pool (Get, Do, Close) for locklab and redsync, a go-redis
// client for redislock and luatoken/go-redis, a rueidis client (which
// pipelines the commands of concurrent goroutines) for luatoken/rueidis.
// The floors are measured through the same clients in the same run, so a
// ratio compares like with like. Beside the two-PING floor the report gives
// SET NX PX + DEL sent by hand, a floor that makes the server do a lock's
// work; luatoken's own commands sent by hand through each client (SET NX PX
// with a new token, then the compare-and-delete by EVALSHA with it), which
// says what a lock library adds to them; and the time the server spent on each command (INFO
// commandstats), which says how much of a lock's distance from the floors
// is Redis's own work.
//
// The same-client figure (sameclient.go) puts every lock beside the
// others on the same client: luatoken, redsync (on its redigo, go-redis and
// rueidis pools) and redislock (go-redis only: it takes go-redis's own
// types) at 1, 16 and 64 goroutines, with luatoken's commands by hand in
// each way the client offers (pooled, with a context with a deadline, on a
// pinned connection), in shuffled rounds; every figure is a median with the
// slowest and fastest round, and two figures whose rounds overlap are
// reported as "no difference measured", not as a ratio.
//
// The contended figure (contended.go) puts 8, 32 and 128 waiters on one
// key with empty critical sections: hand-off latency (one holder's release
// to the next holder's acquire), commands per critical section (counted on
// the wire, and as INFO commandstats calls) and critical sections per
// second, each a median over rounds with its range. Before each count of
// waiters the peers' retry delay is swept (sweep.go) and each peer runs at
// the delay that got the most critical sections through, as well as at its
// documented default.
//
// The kinds figure (kinds.go) puts the project's read-write lock
// (strategy/rwlua) and semaphore (strategy/semlua) beside the designs
// people run (hashrwlock, refcountrwlock; zsetsemaphore,
// countersemaphore) on one redigo pool: uncontended, as a writer, as a
// reader and taking one permit; 16 readers and 1 writer on one key (reads
// and writes per second, the writer's wait); 16 goroutines on 4 permits
// (critical sections per second, the hand-off), in shuffled rounds; each
// contended row also counts the attempts and the server's time per lock
// taken.
//
// The Redlock figure (redlock.go) runs locklab's strategy/redlock and
// redsync over the same five private masters, uncontended, at 1 and 16
// goroutines, in shuffled rounds.
//
// The suite figure (suite.go) times the conformance suite itself: every
// property on luatoken, then every catalog strategy × every property, as
// lockcheck runs them, against the TTL waits the scenarios must sleep.
//
// The files: subjects.go declares every lock measured, clients.go the
// client kinds, hand.go the floors' commands sent by hand; each figure has
// a file of its own (commands.go, uncontended.go, allocations.go,
// parallel.go, sameclient.go, libraries.go, kinds.go, redlock.go,
// contended.go with sweep.go, suite.go), run.go runs them in turn, targets.go checks the goals,
// spread.go sums up rounds, and report.go, table.go and svg.go hold and
// draw the result.
package bench
