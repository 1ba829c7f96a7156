package redistest

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"
)

// Masters is a set of independent Redis masters: no replication, no
// cluster, nothing shared, as Redlock wants them.
type Masters struct {
	Nodes []*Node // named master-0, master-1...
}

// StartMasters starts n independent masters, each a private redis-server
// process on a loopback port of its own with no persistence, and waits
// until all answer PING. Close stops them all and removes their
// directories. The error matches [ErrNoRedisServer] when redis-server is
// not on PATH. [WithMovableClocks] lets the test move their clocks.
func StartMasters(ctx context.Context, n int, opts ...Option) (*Masters, error) {
	if n < 1 {
		return nil, fmt.Errorf("redistest: StartMasters(%d): want at least one master", n)
	}
	bin, err := lookRedisServer()
	if err != nil {
		return nil, err
	}
	ctx, cancel := readyContext(ctx)
	defer cancel()
	nodes, err := startNodes(ctx, bin, "master", n, false, nil, newOptions(opts))
	if err != nil {
		return nil, err
	}
	return &Masters{Nodes: nodes}, nil
}

// Addrs returns the masters' addresses, in the order of Nodes.
func (m *Masters) Addrs() []string {
	addrs := make([]string, len(m.Nodes))
	for i, n := range m.Nodes {
		addrs[i] = n.Addr
	}
	return addrs
}

// NewPools returns a new connection pool to each master (see
// [Node.NewPool]), in the order of Nodes. The caller closes them.
func (m *Masters) NewPools() []*redis.Pool {
	pools := make([]*redis.Pool, len(m.Nodes))
	for i, n := range m.Nodes {
		pools[i] = n.NewPool()
	}
	return pools
}

// Close kills every master and removes its directory.
func (m *Masters) Close() error { return closeNodes(m.Nodes) }
