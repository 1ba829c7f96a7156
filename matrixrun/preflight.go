package matrixrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/rs/xid"
)

// Bounds of the search for a Cluster run's prefix: batches of candidates,
// each batch's CLUSTER KEYSLOT pipelined in one round trip. A node that
// serves s of the 16384 slots misses them all with odds of about e^-s.
const (
	slotBatch   = 512
	slotBatches = 32
)

// preflightTimeout bounds what preflight asks the server.
const preflightTimeout = 10 * time.Second

// unfit is the error of a server that cannot take the run as it is: the
// message says what it is and what to do instead.
type unfit struct{ msg string }

func (e unfit) Error() string { return e.msg }

// preflight finds out, before any key is written, whether the server can
// take the run: a replica and a Sentinel cannot (the writes would fail
// check after check), and a Redis Cluster node takes only keys of the
// slots it serves. It returns the prefix of the run's keys and, for a
// Cluster node, a line saying where they go. An error of type unfit means
// the run cannot be made there, and says why and what to do.
func preflight(ctx context.Context, srv *redistest.Server, keyPrefix string) (prefix, note string, err error) {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	c, err := srv.Dial(ctx)
	if err != nil {
		return "", "", err
	}
	defer c.Close()
	f, err := writable(ctx, c, srv.Addr)
	if err != nil {
		return "", "", err
	}
	if f["cluster_enabled"] != "1" {
		return keyPrefix + xid.New().String(), "", nil
	}
	return clusterPrefix(ctx, c, srv.Addr, keyPrefix)
}

// writable reads INFO on c and returns its fields, or an unfit error when
// they say that the server at addr takes no writes: a Sentinel, or a
// replica (the replica of a Cluster primary too).
func writable(ctx context.Context, c redis.Conn, addr string) (map[string]string, error) {
	f, err := infoFields(ctx, c, "INFO")
	if err != nil {
		return nil, err
	}
	if f["redis_mode"] == "sentinel" {
		return nil, unfit{fmt.Sprintf("the Redis at %s is a Sentinel, which holds no keys: point -redis at a primary it watches (%s)", addr, watched(f))}
	}
	if f["role"] == "slave" {
		primary := net.JoinHostPort(f["master_host"], f["master_port"])
		return nil, unfit{fmt.Sprintf("the Redis at %s is a read-only replica of %s: "+
			"point -redis at its primary (-redis %s)", addr, primary, primary)}
	}
	return f, nil
}

// watched lists the primaries that a Sentinel's INFO fields name, as
// "main at 127.0.0.1:6379", from its fields master0, master1...
// ("name=main,status=ok,address=127.0.0.1:6379,...").
func watched(f map[string]string) string {
	var primaries []string
	for i := 0; ; i++ {
		v, ok := f["master"+strconv.Itoa(i)]
		if !ok {
			break
		}
		var name, address string
		for kv := range strings.SplitSeq(v, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "name":
				name = v
			case "address":
				address = v
			}
		}
		primaries = append(primaries, name+" at "+address)
	}
	if len(primaries) == 0 {
		return "it watches none yet"
	}
	return strings.Join(primaries, ", ")
}

// checkWritable is writable on a connection of its own: -cleanup deletes
// keys, and so needs a server that takes writes as much as a run does. On
// a Cluster node it removes that node's keys, those of the runs made there.
func checkWritable(ctx context.Context, srv *redistest.Server) error {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	c, err := srv.Dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = writable(ctx, c, srv.Addr)
	return err
}

// clusterPrefix returns a run prefix for a Redis Cluster node: a hash tag,
// "{lockcheck:<xid>}", so that every key of the run (each check's keys
// start with the prefix, and luatoken's fencing counters keep the tag)
// hashes to one slot, and a slot that this node serves. Fresh xids are
// tried until one lands there.
func clusterPrefix(ctx context.Context, c redis.Conn, addr, keyPrefix string) (prefix, note string, err error) {
	f, err := infoFields(ctx, c, "CLUSTER", "INFO")
	if err != nil {
		return "", "", err
	}
	if state := f["cluster_state"]; state != "ok" {
		return "", "", unfit{fmt.Sprintf("the Redis at %s is a node of a Redis Cluster that is down (cluster_state:%s), "+
			"which serves no key: mend the Cluster (redis-cli --cluster check %s says what is wrong) and run again", addr, state, addr)}
	}
	nodes, err := redis.String(redis.DoContext(c, ctx, "CLUSTER", "NODES"))
	if err != nil {
		return "", "", fmt.Errorf("CLUSTER NODES: %w", err)
	}
	served, err := ownSlots(nodes)
	if err != nil {
		return "", "", err
	}
	if len(served) == 0 {
		return "", "", unfit{fmt.Sprintf("the Redis at %s is a Redis Cluster primary that serves no hash slot, "+
			"so no key can be written there: point -redis at a node that serves some (CLUSTER SHARDS lists them)", addr)}
	}
	for range slotBatches {
		candidates := make([]string, slotBatch)
		for i := range candidates {
			candidates[i] = "{" + keyPrefix + xid.New().String() + "}"
		}
		slots, err := keySlots(ctx, c, candidates)
		if err != nil {
			return "", "", err
		}
		for i, s := range slots {
			if served[s] {
				return candidates[i], fmt.Sprintf("a Redis Cluster node serving %d of the %d slots: the run's keys go to slot %d, under %s",
					len(served), redistest.Slots, s, candidates[i]), nil
			}
		}
	}
	return "", "", unfit{fmt.Sprintf("the Redis at %s serves only %d of the %d slots of its Cluster, "+
		"and none of %d run prefixes tried hashed to them: point -redis at a node that serves more", addr, len(served), redistest.Slots, slotBatch*slotBatches)}
}

// ownSlots returns the slots that the node answering CLUSTER NODES serves:
// those of its "myself" line, less the ones it is importing or migrating
// (written in brackets).
func ownSlots(nodes string) (map[int]bool, error) {
	for line := range strings.SplitSeq(nodes, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 8 || !strings.Contains(","+fields[2]+",", ",myself,") {
			continue
		}
		served := map[int]bool{}
		for _, r := range fields[8:] {
			if strings.HasPrefix(r, "[") {
				continue
			}
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			first, err1 := strconv.Atoi(lo)
			last, err2 := strconv.Atoi(hi)
			if err := errors.Join(err1, err2); err != nil || first > last || last >= redistest.Slots {
				return nil, fmt.Errorf("CLUSTER NODES: slots %q of this node: not a range of slots", r)
			}
			for s := first; s <= last; s++ {
				served[s] = true
			}
		}
		return served, nil
	}
	return nil, errors.New("CLUSTER NODES: no line for the node itself (flag myself)")
}

// keySlots asks CLUSTER KEYSLOT of every key, in one round trip.
func keySlots(ctx context.Context, c redis.Conn, keys []string) ([]int, error) {
	for _, k := range keys {
		if err := c.Send("CLUSTER", "KEYSLOT", k); err != nil {
			return nil, err
		}
	}
	if err := c.Flush(); err != nil {
		return nil, err
	}
	slots := make([]int, len(keys))
	for i, k := range keys {
		s, err := redis.Int(redis.ReceiveContext(c, ctx))
		if err != nil {
			return nil, fmt.Errorf("CLUSTER KEYSLOT %s: %w", k, err)
		}
		slots[i] = s
	}
	return slots, nil
}

// infoFields sends an INFO-like command (INFO, CLUSTER INFO) and returns
// the fields of its reply.
func infoFields(ctx context.Context, c redis.Conn, cmd string, args ...any) (map[string]string, error) {
	s, err := redis.String(redis.DoContext(c, ctx, cmd, args...))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.TrimSpace(cmd+" "+strings.TrimSpace(fmt.Sprint(args...))), err)
	}
	f := map[string]string{}
	for line := range strings.SplitSeq(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			f[k] = v
		}
	}
	return f, nil
}

// refused reports a look at the server that failed (preflight, or
// checkWritable for -cleanup), before any key was written or removed,
// lets the server go, and returns the exit status: ExitUsage, as for any
// server that cannot be had, or the signal's status when ctx ended.
func (p Program) refused(ctx context.Context, srv *redistest.Server, err error, closeServer func() error) int {
	switch {
	case ctx.Err() != nil:
		p.log("%s while looking at the Redis: nothing was written", interruptCause(ctx))
	case errors.As(err, new(unfit)):
		p.log("%v", err)
	default:
		p.log("looking at the Redis at %s: %v", srv.Addr, err)
	}
	if cerr := closeServer(); cerr != nil {
		p.log("stopping Redis: %v", cerr)
	}
	if ctx.Err() != nil {
		return interruptStatus(ctx)
	}
	return ExitUsage
}
