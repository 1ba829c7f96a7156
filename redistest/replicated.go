package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Replicated is a primary with one replica, as Sentinel or a managed
// service runs them. Redis replicates asynchronously: the primary answers
// a write before the replica has it. The replica follows the primary
// through a relay in this process, so that the test can hold the
// replication stream (HoldReplication) and show what a failover loses.
type Replicated struct {
	Primary *Node // named "primary"
	Replica *Node // named "replica"; it replicates Primary until Promote

	link *relay
}

// StartReplicated starts a primary and a replica of it, private
// redis-server processes on loopback ports with no persistence, and waits
// until the replica has finished its first sync. Close stops both and
// removes their directories. The error matches [ErrNoRedisServer] when
// redis-server is not on PATH.
func StartReplicated(ctx context.Context, opts ...Option) (*Replicated, error) {
	o := newOptions(opts)
	bin, err := lookRedisServer()
	if err != nil {
		return nil, err
	}
	ctx, cancel := readyContext(ctx)
	defer cancel()
	// Without a delay, the primary starts the sync at once rather than
	// waiting five seconds for more replicas.
	primary, err := startNode(ctx, bin, "primary", false, []string{"--repl-diskless-sync-delay", "0"}, o)
	if err != nil {
		return nil, err
	}
	link, err := newRelay(primary.Addr)
	if err != nil {
		_ = primary.close()
		return nil, fmt.Errorf("redistest: the replication link: %w", err)
	}
	host, port, _ := net.SplitHostPort(link.addr())
	replica, err := startNode(ctx, bin, "replica", false, []string{"--replicaof", host, port}, o)
	if err != nil {
		link.close()
		_ = primary.close()
		return nil, err
	}
	r := &Replicated{Primary: primary, Replica: replica, link: link}
	if err := r.WaitReplicated(ctx); err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("redistest: the replica's first sync: %w", err)
	}
	return r, nil
}

// HoldReplication holds the replication link: from its return, nothing
// the primary writes reaches the replica, and the replica's
// acknowledgements do not reach the primary, until ResumeReplication.
// Both keep running and answering clients. Held for longer than
// repl-timeout (60 seconds), the link is dropped by either side, and the
// replica syncs again once it is resumed.
func (r *Replicated) HoldReplication() { r.link.hold() }

// ResumeReplication lets the replication link carry on, starting with
// what it held.
func (r *Replicated) ResumeReplication() { r.link.resume() }

// WaitReplicated waits until the replica's link to the primary is up and
// the replica has applied everything the primary had written when
// WaitReplicated was called, or until ctx is done. It cannot return
// while the link is held.
func (r *Replicated) WaitReplicated(ctx context.Context) error {
	pinfo, err := info(ctx, r.Primary, "replication")
	if err != nil {
		return fmt.Errorf("INFO replication on the primary: %w", err)
	}
	want, err := strconv.ParseInt(pinfo["master_repl_offset"], 10, 64)
	if err != nil {
		return fmt.Errorf("the primary's master_repl_offset: %w", err)
	}
	var last string
	for {
		rinfo, err := info(ctx, r.Replica, "replication")
		if err == nil {
			got, perr := strconv.ParseInt(rinfo["slave_repl_offset"], 10, 64)
			if rinfo["master_link_status"] == "up" && perr == nil && got >= want {
				return nil
			}
			last = fmt.Sprintf("link %s, offset %s of %d", rinfo["master_link_status"], rinfo["slave_repl_offset"], want)
		} else {
			last = err.Error()
		}
		if !sleepCtx(ctx, 10*time.Millisecond) {
			return fmt.Errorf("the replica has not caught up (%s): %w", last, ctx.Err())
		}
	}
}

// Promote makes the replica a primary of its own, as a failover does: the
// replication link is cut, dropping whatever it held, and the replica is
// sent REPLICAOF NO ONE. It keeps what it had applied and accepts writes.
// Promote leaves the old primary as it is: Kill it first for a failover
// after a crash, or leave it running for a split brain, two primaries at
// once. The link cannot be resumed afterwards.
func (r *Replicated) Promote(ctx context.Context) error {
	r.link.close()
	reply, err := redis.String(r.Replica.Do(ctx, "REPLICAOF", "NO", "ONE"))
	if err != nil {
		return fmt.Errorf("redistest: REPLICAOF NO ONE on the replica: %w", err)
	}
	if reply != "OK" {
		return fmt.Errorf("redistest: REPLICAOF NO ONE on the replica answered %q", reply)
	}
	return nil
}

// Nodes returns the primary and the replica.
func (r *Replicated) Nodes() []*Node { return []*Node{r.Primary, r.Replica} }

// Close cuts the replication link, kills both servers and removes their
// directories.
func (r *Replicated) Close() error {
	r.link.close()
	return closeNodes(r.Nodes())
}

// info sends INFO section to n and returns its fields.
func info(ctx context.Context, n *Node, section string) (map[string]string, error) {
	c, err := n.Dial(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	fields, err := Info(ctx, c, section)
	if err == nil && len(fields) == 0 {
		err = errors.New("INFO " + section + " returned no fields")
	}
	return fields, err
}
