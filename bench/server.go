package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// ServerCommands are the commands whose server time the report always
// lists, called or not: those the locks and the floors send, and those the
// recipes may send on paths the uncontended figure does not take.
var ServerCommands = []string{"ping", "set", "evalsha", "del", "setnx", "get", "getset", "pexpire", "ttl", "eval", "publish"}

// cmdStat is one command's line of INFO commandstats: how many times the
// server ran it and how many microseconds it spent doing so in all. The
// server counts the time of the command itself, from the moment it is
// parsed to the moment its reply is queued: reading the request, parsing
// it, and writing the reply are not in it. Commands a Lua script calls are
// counted under their own names too, and their time is in the script's.
type cmdStat struct {
	Calls int64
	Usec  int64
}

// parseCommandStats reads the reply of INFO commandstats. Names are lower
// case, subcommands written as Redis writes them ("config|get").
func parseCommandStats(info string) map[string]cmdStat {
	stats := map[string]cmdStat{}
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "cmdstat_")
		if !ok {
			continue
		}
		name, fields, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		var st cmdStat
		for field := range strings.SplitSeq(fields, ",") {
			k, v, _ := strings.Cut(field, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				continue
			}
			switch k {
			case "calls":
				st.Calls = n
			case "usec":
				st.Usec = n
			}
		}
		stats[strings.ToLower(name)] = st
	}
	return stats
}

// statsDelta returns what the server ran between two readings: the
// commands called in between, with their calls and time.
func statsDelta(before, after map[string]cmdStat) map[string]cmdStat {
	d := map[string]cmdStat{}
	for name, a := range after {
		b := before[name]
		if a.Calls > b.Calls {
			d[name] = cmdStat{Calls: a.Calls - b.Calls, Usec: a.Usec - b.Usec}
		}
	}
	return d
}

// commandStats reads INFO commandstats on the run's own connection, opened
// on first use. The INFO itself is counted under "info", which nothing else
// sends.
func (r *Runner) commandStats(ctx context.Context) (map[string]cmdStat, error) {
	if r.admin == nil {
		c, err := r.srv.Dial(ctx)
		if err != nil {
			return nil, fmt.Errorf("INFO commandstats: %w", err)
		}
		r.admin = c
	}
	s, err := redis.String(r.admin.Do("INFO", "commandstats"))
	if err != nil {
		r.admin.Close()
		r.admin = nil
		return nil, fmt.Errorf("INFO commandstats: %w", err)
	}
	return parseCommandStats(s), nil
}

// statReader reads INFO commandstats again and again and returns what the
// server ran in between.
type statReader struct {
	r    *Runner
	last map[string]cmdStat
}

func (r *Runner) startStats(ctx context.Context) (*statReader, error) {
	st, err := r.commandStats(ctx)
	if err != nil {
		return nil, err
	}
	return &statReader{r: r, last: st}, nil
}

// next returns what the server ran since the last reading.
func (s *statReader) next(ctx context.Context) (map[string]cmdStat, error) {
	st, err := s.r.commandStats(ctx)
	if err != nil {
		return nil, err
	}
	d := statsDelta(s.last, st)
	s.last = st
	return d, nil
}
