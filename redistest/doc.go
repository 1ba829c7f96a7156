// Package redistest finds a real Redis server for tests and tools.
//
// Locklab's lock algorithms are only worth what they do against a real
// server, so nothing here fakes Redis. [Start] looks for one in this order
// and uses the first that works:
//
//  1. An external server named by REDIS_ADDR (host:port) or REDIS_URL
//     (redis://[user:password@]host:port[/db]). It is used as it is and is
//     never stopped or flushed; tests keep apart by using [Key].
//  2. A container started through a Docker engine that answers (DOCKER_HOST
//     or the default socket), with github.com/ory/dockertest/v3. The image
//     is LOCKLAB_REDIS_IMAGE:LOCKLAB_REDIS_TAG; when neither is set, it is
//     locklab/redis:local if the engine has it (scripts/redis-image.sh,
//     which make setup runs, builds it from the local redis-server binary,
//     for where no registry can be reached), else redis:7. It is pulled
//     only when it is missing. The container runs without persistence,
//     is bound to a loopback port, is removed by [Server.Close], and stops
//     and removes itself after LOCKLAB_REDIS_EXPIRE (a Go duration, 30m by
//     default) should the program die before that.
//  3. A private redis-server process found on PATH, listening on a free
//     loopback port with a temporary directory and no persistence. It is
//     stopped by [Server.Close]; on Linux it is also killed when the program
//     that started it dies.
//
// When none works, Start returns an error that says why each step failed
// and how to get a server: set REDIS_ADDR, start Docker with a redis image,
// or install redis-server. That error matches [ErrUnavailable] with
// errors.Is.
//
// LOCKLAB_REDIS forces one step: "external", "docker" or "process". Unset,
// empty or "auto" means the order above. A forced step ignores the others,
// so LOCKLAB_REDIS=process uses a private process even where REDIS_ADDR is
// set.
//
// Tests share one server per test binary: [Shared] starts it on first use,
// [Pool] hands out a connection pool to it, [Key] makes a key no other test
// uses, and [Main], called from TestMain, stops the server when the tests
// are done:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
//	func TestLock(t *testing.T) {
//		pool := redistest.Pool(t)
//		key := redistest.Key(t)
//		// ...
//	}
//
// [StartEvicting] starts a private server short of memory (maxmemory 3mb,
// allkeys-lru) with a client that keeps filling it, so that it keeps
// evicting keys, a lock's as readily as any other.
//
// # Topologies
//
// Some lock algorithms only show what they are worth with more than one
// server. Three functions start small topologies of private redis-server
// processes on loopback ports, always from PATH (never Docker or an
// external server, whatever LOCKLAB_REDIS says), without persistence, each
// in a second or three:
//
//   - [StartReplicated]: a primary and a replica that follows it through
//     a relay in the test process, so that the replication stream can be
//     held ([Replicated.HoldReplication]) and the replica promoted
//     ([Replicated.Promote]), as a failover does;
//   - [StartMasters]: n independent masters, as Redlock uses them;
//   - [StartCluster]: a Redis Cluster of masters sharing the hash slots;
//     [Cluster.MigrateSlot] moves a slot and its keys to another master
//     as redis-cli --cluster reshard does, and [Cluster.StartMigration]
//     does it in steps, to look at the slot in the middle of a move.
//
// Each server is a [Node], which can be killed ([Node.Kill], a crash) and
// started again on the same address ([Node.Start], [Node.Restart]): it
// comes back empty, as a server without persistence does. Close kills
// every process of a topology and removes its directories; on Linux the
// processes are also killed when the program that started them dies. When
// redis-server is not on PATH, the error matches [ErrNoRedisServer] and
// says how to install it.
//
//	m, err := redistest.StartMasters(ctx, 5)
//	if err != nil {
//		return err
//	}
//	defer m.Close()
//	pools := m.NewPools()
package redistest
