//go:build unix

package redistest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
)

// wantRedirect checks that cmd on n fails with a redirection of kind
// ("MOVED" or "ASK") to the node at addr.
func wantRedirect(t *testing.T, n *redistest.Node, kind, addr, cmd string, args ...any) {
	t.Helper()
	_, err := n.Do(context.Background(), cmd, args...)
	if err == nil || !strings.HasPrefix(err.Error(), kind+" ") || !strings.HasSuffix(err.Error(), " "+addr) {
		t.Errorf("%s %v on %s = %v, want %s to %s", cmd, args, n.Name, err, kind, addr)
	}
}

// TestClusterMigrateSlot moves a slot holding three keys from its master to
// another, step by step, checking at each step what the nodes answer, then
// moves it back with MigrateSlot.
func TestClusterMigrateSlot(t *testing.T) {
	c, err := redistest.StartCluster(startCtx(t), 3)
	mustNot(t, err, "StartCluster")
	t.Cleanup(func() { c.Close() })
	ctx := startCtx(t)

	tag := "{" + redistest.Key(t) + "}"
	a, b, k := tag+":a", tag+":b", tag+":c"
	slot, err := redis.Int(do(t, c.Nodes[0], "CLUSTER", "KEYSLOT", tag), nil)
	mustNot(t, err, "CLUSTER KEYSLOT")
	from := c.Owner(slot)
	toIndex := 0
	for i, n := range c.Nodes {
		if n == from {
			toIndex = (i + 1) % len(c.Nodes)
		}
	}
	to := c.Nodes[toIndex]
	var other *redistest.Node // the node that takes no part
	for _, n := range c.Nodes {
		if n != from && n != to {
			other = n
		}
	}
	do(t, from, "SET", a, "1", "PX", 60000)
	do(t, from, "SET", b, "2")
	do(t, from, "SET", k, "3")

	neighbours := map[int]*redistest.Node{}
	for _, s := range []int{slot - 1, slot + 1} {
		if s >= 0 && s < redistest.Slots {
			neighbours[s] = c.Owner(s)
		}
	}

	m, err := c.StartMigration(ctx, slot, toIndex)
	mustNot(t, err, "StartMigration")
	wantEqual(t, m.From, from, "Migration.From")
	wantEqual(t, m.To, to, "Migration.To")
	// Nothing moved yet: the source serves the keys; the target redirects
	// a command that did not say ASKING back to the source.
	wantEqual(t, get(t, from, a), "1", "GET a on the source after StartMigration")
	wantRedirect(t, to, "MOVED", from.Addr, "GET", a)
	wantEqual(t, c.Owner(slot), from, "Owner while migrating")

	mustNot(t, m.MoveKeys(ctx, a), "MoveKeys(a)")
	// a is on the target: the source sends its clients there with ASK, and
	// the target serves them after ASKING, with the key's TTL kept.
	wantRedirect(t, from, "ASK", to.Addr, "GET", a)
	wantEqual(t, get(t, from, b), "2", "GET b on the source, not moved yet")
	_, err = from.Do(ctx, "MGET", a, b)
	if err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
		t.Errorf("MGET a b on the source, a moved and b not, = %v, want TRYAGAIN", err)
	}
	conn, err := to.Dial(ctx)
	mustNot(t, err, "Dial the target")
	defer conn.Close()
	_, err = conn.Do("ASKING")
	mustNot(t, err, "ASKING")
	v, err := redis.String(conn.Do("GET", a))
	mustNot(t, err, "ASKING, GET a on the target")
	wantEqual(t, v, "1", "ASKING, GET a on the target")
	_, err = conn.Do("ASKING")
	mustNot(t, err, "ASKING")
	pttl, err := redis.Int(conn.Do("PTTL", a))
	mustNot(t, err, "ASKING, PTTL a on the target")
	if pttl <= 0 || pttl > 60000 {
		t.Errorf("PTTL of a on the target = %d, want its TTL kept (0 < PTTL <= 60000)", pttl)
	}

	mustNot(t, m.Finish(ctx), "Finish")
	if err := m.Finish(ctx); err == nil {
		t.Error("a second Finish did not fail")
	}
	wantEqual(t, c.Owner(slot), to, "Owner after Finish")
	for key, want := range map[string]string{a: "1", b: "2", k: "3"} {
		wantEqual(t, get(t, to, key), want, "GET "+key+" on the target after Finish")
		wantRedirect(t, from, "MOVED", to.Addr, "GET", key)
		wantRedirect(t, other, "MOVED", to.Addr, "GET", key)
	}
	n, err := redis.Int(do(t, from, "CLUSTER", "COUNTKEYSINSLOT", slot), nil)
	mustNot(t, err, "CLUSTER COUNTKEYSINSLOT")
	wantEqual(t, n, 0, "keys of the slot left on the source")
	mustNot(t, c.WaitOK(ctx), "WaitOK after the migration")
	// The slot's neighbours stayed where they were, on every node.
	for _, s := range []int{slot - 1, slot + 1} {
		if s < 0 || s >= redistest.Slots {
			continue
		}
		wantEqual(t, c.Owner(s), neighbours[s], fmt.Sprintf("Owner(%d), a neighbour of the slot", s))
		for _, n := range c.Nodes {
			addr, err := redistest.SlotAddr(ctx, n, s)
			mustNot(t, err, "CLUSTER SLOTS")
			wantEqual(t, addr, neighbours[s].Addr, fmt.Sprintf("the owner of slot %d, a neighbour, in CLUSTER SLOTS on %s", s, n.Name))
		}
	}

	// And back, in one call.
	var fromIndex int
	for i, n := range c.Nodes {
		if n == from {
			fromIndex = i
		}
	}
	mustNot(t, c.MigrateSlot(ctx, slot, fromIndex), "MigrateSlot back")
	wantEqual(t, c.Owner(slot), from, "Owner after MigrateSlot back")
	for key, want := range map[string]string{a: "1", b: "2", k: "3"} {
		wantEqual(t, get(t, from, key), want, "GET "+key+" on the source after MigrateSlot back")
		wantRedirect(t, to, "MOVED", from.Addr, "GET", key)
	}

	if _, err := c.StartMigration(ctx, slot, fromIndex); err == nil {
		t.Error("StartMigration to the slot's owner did not fail")
	}
	if _, err := c.StartMigration(ctx, redistest.Slots, toIndex); err == nil {
		t.Error("StartMigration of slot 16384 did not fail")
	}
	if _, err := c.StartMigration(ctx, slot, len(c.Nodes)); err == nil {
		t.Error("StartMigration to a node that does not exist did not fail")
	}
}
