package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/gomodule/redigo/redis"
)

// Node is one redis-server process of a topology ([StartReplicated],
// [StartMasters], [StartCluster]). Unlike a [Server] it can be killed and
// started again, on the same address, to play a crash and a restart. It
// never persists anything (no RDB, no AOF), so a node started again comes
// back empty; a Cluster node keeps only its cluster configuration file,
// and so its identity and its slots. Its methods are safe for concurrent
// use.
type Node struct {
	Name string // its role in the topology: "primary", "replica", "master-0", "node-2"...
	Addr string // 127.0.0.1:port, the same across restarts

	bin  string
	port int
	dir  string
	args []string // given to redis-server after the project's own
	env  []string // added to redis-server's environment

	shiftFile string // the clock shim's shift, when the node runs under it

	mu     sync.Mutex
	p      *proc // nil while the node is down
	closed bool
}

// noRedisServer is the error of a topology that cannot start because
// redis-server is not on PATH.
func noRedisServer(err error) error {
	return fmt.Errorf("%w: %v\nTopologies run private redis-server processes (never Docker or an external server): "+
		"install redis-server with apt-get install redis-server (Debian, Ubuntu), brew install redis (macOS), "+
		"or scripts/setup-redis.sh", ErrNoRedisServer, err)
}

// lookRedisServer finds redis-server on PATH.
func lookRedisServer() (string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", noRedisServer(err)
	}
	return bin, nil
}

// startNode starts a node named name on a free loopback port, in a new
// temporary directory. With bus, the port ten thousand above (a Cluster
// node's bus port) is free too.
func startNode(ctx context.Context, bin, name string, bus bool, args []string, o options) (*Node, error) {
	for attempt := 1; ; attempt++ {
		n, err := startNodeOnce(ctx, bin, name, bus, args, o)
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == 5 || ctx.Err() != nil {
			return nil, err
		}
	}
}

func startNodeOnce(ctx context.Context, bin, name string, bus bool, args []string, o options) (*Node, error) {
	var port int
	var err error
	if bus {
		port, err = freeBusPort()
	} else {
		port, err = freePort()
	}
	if err != nil {
		return nil, fmt.Errorf("redistest: %s: finding a free port: %w", name, err)
	}
	dir, err := os.MkdirTemp("", "locklab-redis-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("redistest: %s: %w", name, err)
	}
	n := &Node{
		Name: name,
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		bin:  bin, port: port, dir: dir, args: args,
	}
	if o.movableClock {
		if err := n.movableClock(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := n.Start(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return n, nil
}

// freeBusPort returns a loopback port that is free, and whose Cluster bus
// port (ten thousand above) is free as well.
func freeBusPort() (int, error) {
	for range 50 {
		port, err := freePort()
		if err != nil {
			return 0, err
		}
		if port+10000 > 65535 {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000)))
		if err != nil {
			continue
		}
		l.Close()
		return port, nil
	}
	return 0, errors.New("no port found whose port+10000 is free too")
}

// Start starts the node again after [Node.Kill], on the same address and
// with the same arguments, and waits until it answers PING. Nothing was
// persisted: it starts with an empty dataset. It fails when the node is
// up or closed, or when the port has been taken in the meantime.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.closed:
		return fmt.Errorf("redistest: %s at %s is closed", n.Name, n.Addr)
	case n.p != nil:
		return fmt.Errorf("redistest: %s at %s is up already", n.Name, n.Addr)
	}
	p, err := launch(ctx, n.bin, n.port, n.dir, n.args, n.env)
	if err != nil {
		return fmt.Errorf("redistest: starting %s on %s: %w", n.Name, n.Addr, err)
	}
	n.p = p
	return nil
}

// Kill kills the node's process at once (SIGKILL), as a crash or a power
// cut would, and waits until it has exited. Its dataset is lost. Killing a
// node that is down does nothing.
func (n *Node) Kill() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.p == nil {
		return nil
	}
	err := n.p.kill()
	n.p = nil
	return err
}

// Restart kills the node if it is up and starts it again, empty: a
// restart without persistence.
func (n *Node) Restart(ctx context.Context) error {
	if err := n.Kill(); err != nil {
		return err
	}
	return n.Start(ctx)
}

// Pid returns the process id of the node's redis-server, or 0 while it is
// down.
func (n *Node) Pid() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.p == nil {
		return 0
	}
	return n.p.cmd.Process.Pid
}

// Dir returns the node's directory: its log (redis.log), a Cluster node's
// configuration, the files an initial sync writes. Close removes it.
func (n *Node) Dir() string { return n.dir }

// Dial opens a connection to the node, as [Server.Dial] does.
func (n *Node) Dial(ctx context.Context) (redis.Conn, error) {
	return (&Server{Addr: n.Addr}).Dial(ctx)
}

// NewPool returns a new connection pool to the node, as [Server.NewPool]
// does: a connection broken by a kill is replaced rather than handed out
// again. The caller closes it.
func (n *Node) NewPool() *redis.Pool {
	return (&Server{Addr: n.Addr}).NewPool()
}

// Do sends one command to the node on a connection of its own.
func (n *Node) Do(ctx context.Context, cmd string, args ...any) (any, error) {
	c, err := n.Dial(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return redis.DoContext(c, ctx, cmd, args...)
}

// close kills the node for good and removes its directory. A node of a
// topology is killed rather than asked to shut down: it has nothing to
// save, and a primary would wait for a lagging replica.
func (n *Node) close() error {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	err := n.Kill()
	if rmErr := os.RemoveAll(n.dir); err == nil && rmErr != nil {
		err = fmt.Errorf("redistest: removing %s: %w", n.dir, rmErr)
	}
	return err
}

// closeNodes closes nodes in parallel and returns their errors joined.
func closeNodes(nodes []*Node) error {
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		if n == nil {
			continue
		}
		wg.Go(func() { errs[i] = n.close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// startNodes starts count nodes in parallel, named prefix-0, prefix-1...;
// when one fails, those started are closed.
func startNodes(ctx context.Context, bin, prefix string, count int, bus bool, args []string, o options) ([]*Node, error) {
	nodes := make([]*Node, count)
	errs := make([]error, count)
	var wg sync.WaitGroup
	for i := range count {
		wg.Go(func() {
			nodes[i], errs[i] = startNode(ctx, bin, prefix+"-"+strconv.Itoa(i), bus, args, o)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		_ = closeNodes(nodes)
		return nil, err
	}
	return nodes, nil
}
