package matrixrun

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
)

// A run's keys are under the program's prefix (Program.keyPrefix,
// "lockcheck:") + xid + ":", and the fencing counters of luatoken, named
// "{" + key + "}:fence" (luatoken.FenceKey of a key without braces), under
// "{" + prefix + xid + ":". On a Cluster node the run's prefix is a hash
// tag, "{" + prefix + xid + "}", and every key is under it + ":", the
// counters too (key + ":fence", which keeps the tag).

// runPatterns are the SCAN patterns of the keys made under a run's prefix
// (the program's prefix + xid, or a Cluster run's tag): the locks, and the
// fencing counters beside them.
func runPatterns(prefix string) []string {
	if strings.HasPrefix(prefix, "{") {
		return []string{prefix + ":*"}
	}
	return []string{prefix + ":*", "{" + prefix + ":*"}
}

// allPatterns are the SCAN patterns of every key any run of the program
// may have made.
func (p Program) allPatterns() []string {
	return []string{p.keyPrefix() + "*", "{" + p.keyPrefix() + "*"}
}

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
func (p Program) cleanupRun(srv *redistest.Server, prefixes []string, verbose bool) {
	if len(prefixes) == 0 {
		return
	}
	var patterns []string
	for _, prefix := range prefixes {
		patterns = append(patterns, runPatterns(prefix)...)
	}
	where := "matching " + strings.Join(runPatterns(prefixes[0]), " and ")
	if len(prefixes) > 1 {
		where += fmt.Sprintf(", and %d more prefixes like it", len(prefixes)-1)
	}
	s := sweep(context.Background(), srv.Dial, patterns)
	if s.err == nil {
		if verbose {
			p.log("removed the run's keys: %s %s", countKeys(s.removed), where)
		}
		return
	}
	msg := fmt.Sprintf("could not remove all the run's keys (%s): %v", where, s.err)
	if s.removed > 0 {
		msg += fmt.Sprintf("; removed %s", countKeys(s.removed))
	}
	if len(s.left) > 0 {
		msg += fmt.Sprintf("; %s may remain: %s", countKeys(len(s.left)), listKeys(s.left))
	}
	if srv.Kind == redistest.KindExternal {
		msg += fmt.Sprintf("\n%s -cleanup -redis %s removes them", p.keys(), srv.Addr)
	} else {
		msg += fmt.Sprintf("\nthey go with the Redis %s started, which runs without persistence and is stopped now", p.Name)
	}
	p.say(msg)
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

// noServerToClean is the error of -cleanup without -redis, where the
// server the program would use is one it starts itself.
func (p Program) noServerToClean() error {
	return fmt.Errorf("-cleanup: no server named: give -redis host:port, or set %s or %s "+
		"(a Redis that %s starts itself, in Docker or as a redis-server process, is new and empty: it is stopped with its keys)",
		redistest.EnvAddr, redistest.EnvURL, p.Name)
}

// Cleanup is -cleanup: it removes every key under the program's prefixes
// from the server that target names, or the environment, and says how
// many it removed; it returns the exit status.
func (p Program) Cleanup(ctx context.Context, target string, files redistest.TLSFiles) int {
	if target == "" && !externalNamed() {
		p.log("%v", p.noServerToClean())
		return ExitUsage
	}
	srv, closeServer, err := p.connect(ctx, target, files)
	if err != nil {
		if ctx.Err() != nil {
			p.log("%s while connecting to Redis: nothing removed", interruptCause(ctx))
			return interruptStatus(ctx)
		}
		p.log("%v", err)
		return ExitUsage
	}
	defer closeServer()
	p.log("%v", srv)
	if err := checkWritable(ctx, srv); err != nil {
		return p.refused(ctx, srv, err, closeServer)
	}
	all := p.allPatterns()
	s := sweep(ctx, srv.Dial, all)
	what := strings.Join(all, " and ")
	if ctx.Err() != nil {
		p.log("%s: removed %s matching %s before it stopped", interruptCause(ctx), countKeys(s.removed), what)
		return interruptStatus(ctx)
	}
	fmt.Fprintf(p.Stdout, "removed %s matching %s from %s\n", countKeys(s.removed), what, srv.Addr)
	if s.err != nil {
		msg := fmt.Sprintf("-cleanup: could not remove every key: %v", s.err)
		if len(s.left) > 0 {
			msg += fmt.Sprintf("; %s may remain: %s", countKeys(len(s.left)), listKeys(s.left))
		}
		p.log("%s", msg)
		return ExitMismatch
	}
	return ExitOK
}

// externalNamed reports whether, without -redis, the program would use a
// server named by the environment rather than start one.
func externalNamed() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(redistest.EnvMode))) {
	case "", "auto", redistest.KindExternal:
		return os.Getenv(redistest.EnvAddr) != "" || os.Getenv(redistest.EnvURL) != ""
	}
	return false
}
