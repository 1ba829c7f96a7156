package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/gomodule/redigo/redis"
)

// migrateTimeout is the MIGRATE timeout, in milliseconds: how long the
// source waits for the target to take each batch.
const migrateTimeout = 5000

// Migration moves one hash slot from its master to another, in the steps
// of redis-cli --cluster reshard, so that a test can stop between them:
//
//  1. [Cluster.StartMigration]: the target marks the slot IMPORTING and the
//     source MIGRATING. The source still serves the keys of the slot it
//     holds and answers ASK (to the target) for those it does not; the
//     target serves a command on the slot only after ASKING, and answers
//     MOVED (to the source) otherwise. A command on several keys of the
//     slot, some of them moved, gets TRYAGAIN.
//  2. [Migration.MoveKeys]: MIGRATE sends keys of the slot, with their
//     values and TTLs, from the source to the target, and deletes them on
//     the source.
//  3. [Migration.Finish]: the keys left are moved and every node is told
//     the target owns the slot (CLUSTER SETSLOT NODE); from then on the
//     source answers MOVED.
//
// A Migration is not safe for concurrent use.
type Migration struct {
	Slot     int
	From, To *Node

	c            *Cluster
	to           int // index of To
	fromID, toID string
	done         bool
}

// MigrateSlot moves slot to node to (an index of c.Nodes) with its keys, as
// redis-cli --cluster reshard does: [Cluster.StartMigration], then
// [Migration.Finish]. When it returns, every node names node to as the
// slot's owner, and so does [Cluster.Owner].
func (c *Cluster) MigrateSlot(ctx context.Context, slot, to int) error {
	m, err := c.StartMigration(ctx, slot, to)
	if err != nil {
		return err
	}
	return m.Finish(ctx)
}

// StartMigration begins moving slot to node to (an index of c.Nodes): CLUSTER
// SETSLOT IMPORTING on the target, then MIGRATING on the slot's owner. No
// key moves yet. Both nodes must be up; the target must not own the slot
// already.
func (c *Cluster) StartMigration(ctx context.Context, slot, to int) (*Migration, error) {
	if slot < 0 || slot >= Slots {
		return nil, fmt.Errorf("redistest: slot %d is out of range", slot)
	}
	if to < 0 || to >= len(c.Nodes) {
		return nil, fmt.Errorf("redistest: no node %d in a cluster of %d", to, len(c.Nodes))
	}
	m := &Migration{Slot: slot, From: c.Owner(slot), To: c.Nodes[to], c: c, to: to}
	if m.From == m.To {
		return nil, fmt.Errorf("redistest: %s owns slot %d already", m.To.Name, slot)
	}
	var err error
	if m.fromID, err = myID(ctx, m.From); err != nil {
		return nil, err
	}
	if m.toID, err = myID(ctx, m.To); err != nil {
		return nil, err
	}
	// The target first, as redis-cli does: once the source says ASK, the
	// target must accept the asked commands.
	if _, err := m.To.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", m.fromID); err != nil {
		return nil, fmt.Errorf("redistest: CLUSTER SETSLOT %d IMPORTING on %s: %w", slot, m.To.Name, err)
	}
	if _, err := m.From.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", m.toID); err != nil {
		return nil, fmt.Errorf("redistest: CLUSTER SETSLOT %d MIGRATING on %s: %w", slot, m.From.Name, err)
	}
	return m, nil
}

// MoveKeys moves keys of the migrating slot from the source to the target
// with MIGRATE, each with its value and TTL, deleting them on the source:
// the given keys (those of them that exist), or every key the source still
// has in the slot when none is given.
func (m *Migration) MoveKeys(ctx context.Context, keys ...string) error {
	if m.done {
		return errors.New("redistest: the migration is finished")
	}
	if len(keys) > 0 {
		return m.migrate(ctx, keys)
	}
	for {
		batch, err := redis.Strings(m.From.Do(ctx, "CLUSTER", "GETKEYSINSLOT", m.Slot, 100))
		if err != nil {
			return fmt.Errorf("redistest: CLUSTER GETKEYSINSLOT %d on %s: %w", m.Slot, m.From.Name, err)
		}
		if len(batch) == 0 {
			return nil
		}
		if err := m.migrate(ctx, batch); err != nil {
			return err
		}
	}
}

// migrate sends keys from the source to the target in one MIGRATE.
func (m *Migration) migrate(ctx context.Context, keys []string) error {
	host, port, err := net.SplitHostPort(m.To.Addr)
	if err != nil {
		return err
	}
	args := []any{host, port, "", 0, migrateTimeout, "KEYS"}
	for _, k := range keys {
		args = append(args, k)
	}
	// NOKEY: none of them was there, which is no error.
	if _, err := m.From.Do(ctx, "MIGRATE", args...); err != nil {
		return fmt.Errorf("redistest: MIGRATE of %d keys of slot %d from %s to %s: %w", len(keys), m.Slot, m.From.Name, m.To.Name, err)
	}
	return nil
}

// Finish moves the keys the source has left in the slot, then tells every
// node that the target owns it, with CLUSTER SETSLOT NODE: the target
// first (it takes a new configuration epoch, so that its claim wins as the
// news spreads), then the source, then the others that are up. It returns
// once every node that is up names the target as the owner in CLUSTER
// SLOTS.
func (m *Migration) Finish(ctx context.Context) error {
	if m.done {
		return errors.New("redistest: the migration is finished")
	}
	if err := m.MoveKeys(ctx); err != nil {
		return err
	}
	order := []*Node{m.To, m.From}
	for _, n := range m.c.Nodes {
		if n != m.To && n != m.From && n.Pid() != 0 {
			order = append(order, n)
		}
	}
	for _, n := range order {
		if _, err := n.Do(ctx, "CLUSTER", "SETSLOT", m.Slot, "NODE", m.toID); err != nil {
			return fmt.Errorf("redistest: CLUSTER SETSLOT %d NODE on %s: %w", m.Slot, n.Name, err)
		}
	}
	m.done = true
	m.c.mu.Lock()
	if m.c.moved == nil {
		m.c.moved = map[int]int{}
	}
	m.c.moved[m.Slot] = m.to
	m.c.mu.Unlock()
	for _, n := range order {
		for {
			addr, err := slotAddr(ctx, n, m.Slot)
			if err == nil && addr == m.To.Addr {
				break
			}
			if !sleepCtx(ctx, 20*time.Millisecond) {
				return fmt.Errorf("redistest: %s does not name %s as the owner of slot %d (%q, %v): %w",
					n.Name, m.To.Name, m.Slot, addr, err, ctx.Err())
			}
		}
	}
	return nil
}

// myID returns n's cluster node id.
func myID(ctx context.Context, n *Node) (string, error) {
	id, err := redis.String(n.Do(ctx, "CLUSTER", "MYID"))
	if err != nil {
		return "", fmt.Errorf("redistest: CLUSTER MYID on %s: %w", n.Name, err)
	}
	return id, nil
}

// slotAddr returns the address of the master that n's CLUSTER SLOTS names
// for slot, or "" when it names none.
func slotAddr(ctx context.Context, n *Node, slot int) (string, error) {
	ranges, err := redis.Values(n.Do(ctx, "CLUSTER", "SLOTS"))
	if err != nil {
		return "", err
	}
	for _, r := range ranges {
		f, err := redis.Values(r, nil)
		if err != nil || len(f) < 3 {
			return "", fmt.Errorf("CLUSTER SLOTS: unexpected entry %v", r)
		}
		first, err1 := redis.Int(f[0], nil)
		last, err2 := redis.Int(f[1], nil)
		master, err3 := redis.Values(f[2], nil)
		if err := errors.Join(err1, err2, err3); err != nil || len(master) < 2 {
			return "", fmt.Errorf("CLUSTER SLOTS: unexpected entry %v", r)
		}
		if slot < first || slot > last {
			continue
		}
		host, err1 := redis.String(master[0], nil)
		port, err2 := redis.Int(master[1], nil)
		if err := errors.Join(err1, err2); err != nil {
			return "", fmt.Errorf("CLUSTER SLOTS: unexpected master %v", master)
		}
		return net.JoinHostPort(host, fmt.Sprint(port)), nil
	}
	return "", nil
}
