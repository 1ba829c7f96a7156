package redistest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Slots is the number of hash slots of a Redis Cluster.
const Slots = 16384

// Cluster is a Redis Cluster of masters without replicas: each owns an
// even share of the hash slots, in order (node-0 the lowest).
type Cluster struct {
	Nodes []*Node // named node-0, node-1...

	first []int // the first slot of each node; node i was given first[i] to first[i+1]-1

	mu    sync.Mutex
	moved map[int]int // the slots migrated since, to the index of their owner
}

// StartCluster starts a Redis Cluster of masters (at least one; three is
// the usual smallest), private redis-server processes on loopback ports
// with no persistence, and waits until every node reports cluster_state:ok
// and knows every other. The slots are split evenly with CLUSTER ADDSLOTS
// and the nodes joined with CLUSTER MEET, as redis-cli --cluster create
// does. A node notices another is down after cluster-node-timeout, 2000 ms
// here. Close stops them all and removes their directories. The error
// matches [ErrNoRedisServer] when redis-server is not on PATH.
func StartCluster(ctx context.Context, masters int) (*Cluster, error) {
	if masters < 1 {
		return nil, fmt.Errorf("redistest: StartCluster(%d): want at least one master", masters)
	}
	bin, err := lookRedisServer()
	if err != nil {
		return nil, err
	}
	ctx, cancel := readyContext(ctx)
	defer cancel()
	nodes, err := startNodes(ctx, bin, "node", masters, true, []string{
		"--cluster-enabled", "yes",
		"--cluster-config-file", "nodes.conf", // in the node's directory
		"--cluster-node-timeout", "2000",
	}, options{})
	if err != nil {
		return nil, err
	}
	c := &Cluster{Nodes: nodes}
	for i := range masters {
		c.first = append(c.first, i*Slots/masters)
	}
	if err := c.form(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("redistest: forming the cluster: %w", err)
	}
	return c, nil
}

// form gives each node its slots and a config epoch of its own, has the
// first node meet the others, and waits until every node sees the cluster
// whole.
func (c *Cluster) form(ctx context.Context) error {
	for i, n := range c.Nodes {
		first, last := c.Range(i)
		args := make([]any, 0, last-first+1)
		for s := first; s <= last; s++ {
			args = append(args, s)
		}
		if _, err := n.Do(ctx, "CLUSTER", append([]any{"ADDSLOTS"}, args...)...); err != nil {
			return fmt.Errorf("CLUSTER ADDSLOTS %d-%d on %s: %w", first, last, n.Name, err)
		}
		// Distinct epochs spare the cluster resolving a collision first.
		if _, err := n.Do(ctx, "CLUSTER", "SET-CONFIG-EPOCH", i+1); err != nil {
			return fmt.Errorf("CLUSTER SET-CONFIG-EPOCH on %s: %w", n.Name, err)
		}
	}
	for _, n := range c.Nodes[1:] {
		host, port, _ := net.SplitHostPort(n.Addr)
		if _, err := c.Nodes[0].Do(ctx, "CLUSTER", "MEET", host, port); err != nil {
			return fmt.Errorf("CLUSTER MEET %s from %s: %w", n.Addr, c.Nodes[0].Name, err)
		}
	}
	return c.WaitOK(ctx)
}

// WaitOK waits until every node that is up reports cluster_state:ok, knows
// every node of the cluster and sees all the slots assigned, or until ctx
// is done.
func (c *Cluster) WaitOK(ctx context.Context) error {
	want := fmt.Sprint(len(c.Nodes))
	for {
		var last string
		for _, n := range c.Nodes {
			if n.Pid() == 0 {
				continue
			}
			f, err := clusterInfo(ctx, n)
			switch {
			case err != nil:
				last = fmt.Sprintf("%s: %v", n.Name, err)
			case f["cluster_state"] != "ok" || f["cluster_known_nodes"] != want || f["cluster_slots_assigned"] != fmt.Sprint(Slots):
				last = fmt.Sprintf("%s: cluster_state:%s, cluster_known_nodes:%s, cluster_slots_assigned:%s",
					n.Name, f["cluster_state"], f["cluster_known_nodes"], f["cluster_slots_assigned"])
			}
			if last != "" {
				break
			}
		}
		if last == "" {
			return nil
		}
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return fmt.Errorf("the cluster is not ok (%s): %w", last, ctx.Err())
		}
	}
}

// Range returns the first and the last slot node i was given when the
// cluster formed. It owns them all unless [Cluster.MigrateSlot] or a
// [Migration] moved some away, which [Cluster.Owner] follows.
func (c *Cluster) Range(i int) (first, last int) {
	if i+1 < len(c.first) {
		return c.first[i], c.first[i+1] - 1
	}
	return c.first[i], Slots - 1
}

// Owner returns the node that owns slot: its node in [Cluster.Range],
// unless a migration finished since moved it.
func (c *Cluster) Owner(slot int) *Node {
	return c.Nodes[c.owner(slot)]
}

// owner returns the index of the node that owns slot.
func (c *Cluster) owner(slot int) int {
	c.mu.Lock()
	i, ok := c.moved[slot]
	c.mu.Unlock()
	if ok {
		return i
	}
	for i := len(c.first) - 1; i >= 0; i-- {
		if slot >= c.first[i] {
			return i
		}
	}
	return 0
}

// NodeFor returns the node that owns key's slot, as CLUSTER KEYSLOT
// computes it on the first node that is up.
func (c *Cluster) NodeFor(ctx context.Context, key string) (*Node, error) {
	var err error
	for _, n := range c.Nodes {
		if n.Pid() == 0 {
			continue
		}
		var slot int
		slot, err = redis.Int(n.Do(ctx, "CLUSTER", "KEYSLOT", key))
		if err == nil {
			return c.Owner(slot), nil
		}
	}
	if err == nil {
		err = fmt.Errorf("no node is up")
	}
	return nil, fmt.Errorf("redistest: CLUSTER KEYSLOT %q: %w", key, err)
}

// Close kills every node and removes its directory.
func (c *Cluster) Close() error { return closeNodes(c.Nodes) }

// clusterInfo sends CLUSTER INFO to n and returns its fields.
func clusterInfo(ctx context.Context, n *Node) (map[string]string, error) {
	s, err := redis.String(n.Do(ctx, "CLUSTER", "INFO"))
	if err != nil {
		return nil, err
	}
	f := map[string]string{}
	for line := range strings.SplitSeq(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			f[k] = v
		}
	}
	return f, nil
}
