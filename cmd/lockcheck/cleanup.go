package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
)

// keyPrefix starts the name of every key lockcheck makes: a run's keys are
// under keyPrefix + xid + ":", and the fencing counters of luatoken, named
// "{" + key + "}:fence" (luatoken.FenceKey of a key without braces), under
// "{" + keyPrefix + xid + ":". On a Cluster node the run's prefix is a hash
// tag, "{" + keyPrefix + xid + "}", and every key is under it + ":", the
// counters too (key + ":fence", which keeps the tag).
const keyPrefix = "lockcheck:"

// runPatterns are the SCAN patterns of the keys made under a run's prefix
// (keyPrefix + xid, or a Cluster run's tag): the locks, and the fencing
// counters beside them.
func runPatterns(prefix string) []string {
	if strings.HasPrefix(prefix, "{") {
		return []string{prefix + ":*"}
	}
	return []string{prefix + ":*", "{" + prefix + ":*"}
}

// allPatterns are the SCAN patterns of every key any run may have made.
var allPatterns = []string{keyPrefix + "*", "{" + keyPrefix + "*"}

// Bounds of a cleanup: the whole of it, how many fresh connections it
// tries, and how many times one connection scans and deletes again because
// keys matched after a deletion.
const (
	cleanupTimeout  = 5 * time.Second
	cleanupAttempts = 4
	cleanupPasses   = 5
	// shutLimit is how long an interrupted run waits for the commands under
	// way to return before it cleans up regardless.
	shutLimit = 2 * time.Second
)

// swept is what a cleanup did.
type swept struct {
	removed int      // keys deleted
	left    []string // keys seen and perhaps still there, when err is set
	err     error    // why the cleanup gave up; nil when no key matches any more
}

// sweep deletes every key matching patterns. Each attempt dials a fresh
// connection with dial and scans and deletes until a scan finds nothing;
// after a failure it tries again, cleanupAttempts times in all, within
// cleanupTimeout.
func sweep(ctx context.Context, dial func(context.Context) (redis.Conn, error), patterns []string) swept {
	ctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
	defer cancel()
	var s swept
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		left, err := sweepOnce(ctx, dial, patterns, &s.removed)
		if err == nil {
			s.left, s.err = nil, nil
			return s
		}
		if left != nil || s.left == nil {
			s.left = left
		}
		s.err = err
		if attempt == cleanupAttempts || ctx.Err() != nil {
			return s
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return s
		}
		delay *= 2
	}
}

// sweepOnce scans and deletes on one fresh connection, until a scan finds
// nothing. On failure it returns the keys that may remain, when it knows
// them.
func sweepOnce(ctx context.Context, dial func(context.Context) (redis.Conn, error), patterns []string, removed *int) ([]string, error) {
	c, err := dial(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	for pass := 1; ; pass++ {
		keys, err := scan(ctx, c, patterns)
		if err != nil {
			return nil, err
		}
		if len(keys) == 0 {
			return nil, nil
		}
		if pass > cleanupPasses {
			return keys, fmt.Errorf("keys still appear after %d rounds of deletion: something is still writing them", cleanupPasses)
		}
		for i, batch := 0, []string(nil); i < len(keys); i += len(batch) {
			batch = keys[i:min(i+500, len(keys))]
			n, err := redis.Int(redis.DoContext(c, ctx, "DEL", redis.Args{}.AddFlat(batch)...))
			if err != nil {
				return keys[i:], err
			}
			*removed += n
		}
	}
}

// scan returns the keys that match any of patterns, each once, sorted.
func scan(ctx context.Context, c redis.Conn, patterns []string) ([]string, error) {
	seen := map[string]bool{}
	for _, pattern := range patterns {
		cursor := "0"
		for {
			reply, err := redis.Values(redis.DoContext(c, ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", 1000))
			if err == nil && len(reply) != 2 {
				err = fmt.Errorf("SCAN: %d elements in the reply, want 2", len(reply))
			}
			if err != nil {
				return nil, err
			}
			keys, err := redis.Strings(reply[1], nil)
			if err != nil {
				return nil, fmt.Errorf("SCAN: %w", err)
			}
			for _, k := range keys {
				seen[k] = true
			}
			if cursor, err = redis.String(reply[0], nil); err != nil {
				return nil, fmt.Errorf("SCAN: %w", err)
			}
			if cursor == "0" {
				break
			}
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// cleanupRun deletes the keys of a run, made under prefixes, on fresh
// connections to srv: the pool the checks used may be the reason the run
// ended. It reports what it removed when verbose, and always what it could
// not remove.
func cleanupRun(srv *redistest.Server, prefixes []string, verbose bool, stderr io.Writer) {
	if len(prefixes) == 0 {
		return
	}
	var patterns []string
	for _, p := range prefixes {
		patterns = append(patterns, runPatterns(p)...)
	}
	where := "matching " + strings.Join(runPatterns(prefixes[0]), " and ")
	if len(prefixes) > 1 {
		where += fmt.Sprintf(", and %d more prefixes like it", len(prefixes)-1)
	}
	s := sweep(context.Background(), srv.Dial, patterns)
	if s.err == nil {
		if verbose {
			fmt.Fprintf(stderr, "lockcheck: removed the run's keys: %s %s\n", countKeys(s.removed), where)
		}
		return
	}
	msg := fmt.Sprintf("lockcheck: could not remove all the run's keys (%s): %v", where, s.err)
	if s.removed > 0 {
		msg += fmt.Sprintf("; removed %s", countKeys(s.removed))
	}
	if len(s.left) > 0 {
		msg += fmt.Sprintf("; %s may remain: %s", countKeys(len(s.left)), listKeys(s.left))
	}
	if srv.Kind == redistest.KindExternal {
		msg += fmt.Sprintf("\nlockcheck: lockcheck -cleanup -redis %s removes them", srv.Addr)
	} else {
		msg += "\nlockcheck: they go with the Redis lockcheck started, which runs without persistence and is stopped now"
	}
	fmt.Fprintln(stderr, msg)
}

// countKeys says "1 key", "3 keys".
func countKeys(n int) string {
	if n == 1 {
		return "1 key"
	}
	return fmt.Sprintf("%d keys", n)
}

// listKeys lists up to ten keys.
func listKeys(keys []string) string {
	const most = 10
	if len(keys) <= most {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:most], ", "), len(keys)-most)
}

// errNoServerToClean: -cleanup without -redis, where the server lockcheck
// would use is one it starts itself.
var errNoServerToClean = errors.New("-cleanup: no server named: give -redis host:port, or set " +
	redistest.EnvAddr + " or " + redistest.EnvURL + " (a Redis that lockcheck starts itself, " +
	"in Docker or as a redis-server process, is new and empty: it is stopped with its keys)")

// cleanupCommand is lockcheck -cleanup: it removes every key under the
// lockcheck prefixes from the server given by -redis, or named by the
// environment, and says how many it removed.
func cleanupCommand(ctx context.Context, addr string, files redistest.TLSFiles, e env) int {
	if addr == "" && !externalNamed() {
		fmt.Fprintf(e.stderr, "lockcheck: %v\n", errNoServerToClean)
		return exitUsage
	}
	srv, closeServer, err := connect(ctx, addr, files, e.start)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(e.stderr, "lockcheck: %s while connecting to Redis: nothing removed\n", interruptCause(ctx))
			return interruptStatus(ctx)
		}
		fmt.Fprintf(e.stderr, "lockcheck: %v\n", err)
		return exitUsage
	}
	defer closeServer()
	fmt.Fprintf(e.stderr, "lockcheck: %v\n", srv)
	if err := checkWritable(ctx, srv); err != nil {
		return refused(ctx, srv, err, closeServer, e.stderr)
	}
	s := sweep(ctx, srv.Dial, allPatterns)
	what := strings.Join(allPatterns, " and ")
	if ctx.Err() != nil {
		fmt.Fprintf(e.stderr, "lockcheck: %s: removed %s matching %s before it stopped\n", interruptCause(ctx), countKeys(s.removed), what)
		return interruptStatus(ctx)
	}
	if s.err != nil {
		fmt.Fprintf(e.stdout, "removed %s matching %s from %s\n", countKeys(s.removed), what, srv.Addr)
		msg := fmt.Sprintf("lockcheck: -cleanup: could not remove every key: %v", s.err)
		if len(s.left) > 0 {
			msg += fmt.Sprintf("; %s may remain: %s", countKeys(len(s.left)), listKeys(s.left))
		}
		fmt.Fprintln(e.stderr, msg)
		return exitMismatch
	}
	fmt.Fprintf(e.stdout, "removed %s matching %s from %s\n", countKeys(s.removed), what, srv.Addr)
	return exitOK
}

// externalNamed reports whether, without -redis, lockcheck would use a
// server named by the environment rather than start one.
func externalNamed() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(redistest.EnvMode))) {
	case "", "auto", redistest.KindExternal:
		return os.Getenv(redistest.EnvAddr) != "" || os.Getenv(redistest.EnvURL) != ""
	}
	return false
}
