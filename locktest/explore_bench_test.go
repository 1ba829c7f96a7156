package locktest_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/internal/kindmutants"
	"github.com/locklab/locklab/internal/mutants"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

var (
	explorerTable = flag.String("explorer-table", "", "with BenchmarkExplorer, write its table, as Markdown, to this `file` too")
	explorerSaves = flag.String("explorer-saves", "", "with BenchmarkExplorer, save each break it finds, its history included, as JSON in this `dir`")
	explorerDocs  = flag.String("explorer-docs", "", "with BenchmarkExplorer (BenchmarkExploreParts), write its table into the explorer:table (explorer:parts) blocks of explorer.md and zh/explorer.md under this `dir` (../docs from the package)")
)

// explored is one lock the explorer's benchmark runs: what it must find.
type explored struct {
	group, name string
	kind        strategy.Kind
	new         locktest.Factory
	breaks      bool // a property the explorer can reach breaks on it
	entry       *catalog.Entry
}

// config is the configuration to explore l on addr, under key.
func (l explored) config(addr, key string) locktest.Config {
	cfg := locktest.Config{Addr: addr, New: l.new, Key: key}
	if l.entry != nil {
		cfg = l.entry.Config(cfg)
	}
	return cfg
}

// reachable says whether a lock that breaks ps breaks a property the
// explorer can meet: on one server, not an overrun, but fenced-overrun
// on a lock that gives fencing tokens (fenced), whose holders write
// with them to a resource in explored runs.
func reachable(ps []locktest.Property, fenced bool) bool {
	if fenced && slices.Contains(ps, locktest.FencedOverrun) {
		return true
	}
	one := locktest.Properties()
	for _, k := range []strategy.Kind{strategy.ReadWrite, strategy.Semaphore} {
		one = append(one, locktest.KindProperties(k)...)
	}
	// A reader's overrun is the mutex's; a reentrant read unlock needs a
	// holder that reenters, which the explorer's workloads do not draw.
	unreachable := append(slices.Clone(overrun), locktest.ReaderOverrun, locktest.ReaderReentrant)
	for _, p := range ps {
		if slices.Contains(one, p) && !slices.Contains(unreachable, p) {
			return true
		}
	}
	return false
}

func exploredLocks() []explored {
	var out []explored
	for _, e := range catalog.Strategies() {
		if e.Config(locktest.Config{}).Masters > 1 {
			continue // a lock over several masters: the topology properties check it
		}
		out = append(out, explored{"recipe", e.Name, strategy.Mutex, e.New, reachable(e.Expect.Breaks, false), &e})
	}
	for _, k := range []strategy.Kind{strategy.ReadWrite, strategy.Semaphore} {
		for _, e := range catalog.KindStrategies(k) {
			out = append(out, explored{"recipe", e.Name, k, e.New, reachable(e.Expect.Breaks, false), &e})
		}
	}
	for _, m := range mutants.Mutants() {
		base, _ := mutants.LookupVariant(m.Base)
		out = append(out, explored{"mutant", m.Name, strategy.Mutex, m.New, reachable(m.Killers, base.Fenced), nil})
	}
	for _, v := range mutants.Variants() {
		out = append(out, explored{"variant", v.Name, strategy.Mutex, v.New, false, nil})
	}
	for _, m := range kindmutants.Mutants() {
		out = append(out, explored{"mutant", m.Name, m.Kind(), m.New, reachable(m.Killers, false), nil})
	}
	for _, v := range kindmutants.Variants() {
		out = append(out, explored{"variant", v.Name, v.Kind, v.New, false, nil})
	}
	return out
}

// BenchmarkExplorer runs the explorer alone, without the scenarios, on the
// catalog's columns and both corpora, and prints a table: for a lock that
// breaks, whether the explorer found it, in how many runs and how long,
// and the shrunk counterexample's size; for one that holds, the runs
// without a false alarm. LOCKLAB_EXPLORE_RUNS (2000) and
// LOCKLAB_EXPLORE_BUDGET (2m) bound each lock, LOCKLAB_EXPLORE_SEED (1)
// sets the first seed, LOCKLAB_EXPLORE_ONLY (a regexp on group/name)
// selects, LOCKLAB_EXPLORE (sched=pct, sched=walk, swarm=off) turns parts
// off:
//
//	go test -run '^$' -bench Explorer -benchtime 1x ./locktest
func BenchmarkExplorer(b *testing.B) {
	runs := envInt("LOCKLAB_EXPLORE_RUNS", 2000)
	budget := 2 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("LOCKLAB_EXPLORE_BUDGET")); err == nil {
		budget = d
	}
	only := regexp.MustCompile(os.Getenv("LOCKLAB_EXPLORE_ONLY"))
	seed := int64(envInt("LOCKLAB_EXPLORE_SEED", 1))
	addr := redistest.Shared(b).Addr
	ctx := context.Background()
	var rows []string
	found, want, alarms, held := 0, 0, 0, 0
	for range b.N {
		for _, l := range exploredLocks() {
			if !only.MatchString(l.group + "/" + l.name) {
				continue
			}
			cfg := l.config(addr, redistest.Key(b)+":"+l.group+":"+l.name)
			start := time.Now()
			res, err := locktest.Explore(ctx, cfg, locktest.ExploreOptions{Seed: seed, Runs: runs, Budget: budget})
			took := time.Since(start).Round(100 * time.Millisecond)
			fmt.Fprintf(os.Stderr, "explored %s/%s in %v: %s: %s\n", l.group, l.name, took, res.Verdict, res.Reason())
			if *explorerSaves != "" && res.Verdict == locktest.Breaks {
				saveBreak(b, *explorerSaves, l, res)
			}
			if err != nil {
				rows = append(rows, fmt.Sprintf("| %s | %s | %s | error: %v | | | |", l.group, l.name, l.kind, err))
				continue
			}
			args := countArgs(res.Message)
			switch {
			case l.breaks:
				want++
				if res.Verdict == locktest.Breaks {
					found++
					// seed, runs, clients, operations, faults, reproduced, replays
					from := ""
					for _, n := range res.Notes {
						if n.ID == "explore.later-find" {
							// first's run, broke, tries, more, the run shrunk, its seed
							a := countArgs(n)
							from = fmt.Sprintf("; the plan of run %d (the first broke in %d of %d again)", a[4], a[1], a[2])
						}
					}
					rows = append(rows, fmt.Sprintf("| %s | %s | %s | found | %d | %v | %d clients, %d ops, %d faults; reproduced %d of %d%s |",
						l.group, l.name, l.kind, args[1], took, args[2], args[3], args[4], args[5], args[6], from))
				} else {
					rows = append(rows, fmt.Sprintf("| %s | %s | %s | missed | %d | %v | |", l.group, l.name, l.kind, args[0], took))
				}
			default:
				held++
				if res.Verdict == locktest.Breaks {
					alarms++
					rows = append(rows, fmt.Sprintf("| %s | %s | %s | violation: %s | %d | %v | |", l.group, l.name, l.kind, res.Reason(), args[1], took))
				} else {
					rows = append(rows, fmt.Sprintf("| %s | %s | %s | no violation | %d | %v | |", l.group, l.name, l.kind, args[0], took))
				}
			}
		}
	}
	table := fmt.Sprintf("Found %d of %d locks that break a property the explorer can reach; %d violations on %d locks that hold (runs %d, budget %v a lock, %s).\n\n",
		found, want, alarms, held, runs, budget, knobs()) +
		"| group | lock | kind | outcome | runs | time | shrunk |\n|---|---|---|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	fmt.Println(table)
	if *explorerTable != "" {
		if err := os.WriteFile(*explorerTable, []byte(table), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if *explorerDocs != "" {
		for _, page := range []string{"explorer.md", "zh/explorer.md"} {
			if err := writeBlock(filepath.Join(*explorerDocs, page), "explorer:table", table); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// writeBlock replaces what stands between <!-- marker --> and
// <!-- /marker --> in the file at path with body.
func writeBlock(path, marker, body string) error {
	page, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	open, end := "<!-- "+marker+" -->\n", "<!-- /"+marker+" -->"
	i, j := strings.Index(string(page), open), strings.Index(string(page), end)
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %s block", path, marker)
	}
	out := string(page[:i+len(open)]) + body + string(page[j:])
	return os.WriteFile(path, []byte(out), 0o644)
}

// countArgs are the counts among a message's arguments, in order.
// saveBreak writes res, a break the explorer found on l, into dir as
// JSON (locktest.Result's, which locktest.Judge can judge again), so
// that a false alarm on a lock that holds keeps its history.
func saveBreak(b *testing.B, dir string, l explored, res locktest.Result) {
	out, err := json.MarshalIndent(res, "", "  ")
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, l.group+"-"+l.name+".json"), out, 0o644)
	}
	if err != nil {
		b.Errorf("%s/%s: %v", l.group, l.name, err)
	}
}

func countArgs(m locktest.Message) []int {
	var out []int
	for _, a := range m.Args {
		if a.Msg == nil {
			out = append(out, int(a.N))
		}
	}
	for len(out) < 8 {
		out = append(out, 0)
	}
	return out
}

func knobs() string {
	if k := os.Getenv("LOCKLAB_EXPLORE"); k != "" {
		return k
	}
	return "PCT and walks, swarm on"
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// parts are the ways BenchmarkExploreParts draws schedules and swarms,
// each as LOCKLAB_EXPLORE knobs.
var parts = []struct{ name, short, knobs string }{
	{"default: PCT or a walk, then a small plan's other schedules (a run in four at most)", "default", ""},
	{"PCT alone", "PCT", "sched=pct"},
	{"random walk alone", "walk", "sched=walk"},
	{"exhaustive where small, else the first waiting", "exhaustive", "sched=exhaustive"},
	{"default, swarm off", "swarm off", "swarm=off"},
}

// BenchmarkExploreParts measures what each part of the explorer buys: on
// the same locks that break (LOCKLAB_EXPLORE_ONLY narrows them), each way
// of scheduling (PCT, a random walk, an exhaustive search of small plans)
// and the swarm off, from seed 1 (LOCKLAB_EXPLORE_SEED), unshrunk: how
// many it found, the median runs and time to the first find among those
// found, and the time all took. LOCKLAB_EXPLORE_RUNS (300) and
// LOCKLAB_EXPLORE_BUDGET (1m) bound each exploration; LOCKLAB_EXPLORE_PARTS
// (a regexp on their names) selects the parts:
//
//	go test -run '^$' -bench ExploreParts -benchtime 1x ./locktest
func BenchmarkExploreParts(b *testing.B) {
	runs := envInt("LOCKLAB_EXPLORE_RUNS", 300)
	budget := time.Minute
	if d, err := time.ParseDuration(os.Getenv("LOCKLAB_EXPLORE_BUDGET")); err == nil {
		budget = d
	}
	only := regexp.MustCompile(os.Getenv("LOCKLAB_EXPLORE_ONLY"))
	seed := int64(envInt("LOCKLAB_EXPLORE_SEED", 1))
	addr := redistest.Shared(b).Addr
	var locks []explored
	for _, l := range exploredLocks() {
		if l.breaks && only.MatchString(l.group+"/"+l.name) {
			locks = append(locks, l)
		}
	}
	which := regexp.MustCompile(os.Getenv("LOCKLAB_EXPLORE_PARTS"))
	var chosen []int
	header := "| lock |"
	for p, part := range parts {
		if which.MatchString(part.name) {
			chosen = append(chosen, p)
			header += " " + part.short + " |"
		}
	}
	// found[p][i]: the runs part p took to find lock i; 0: missed.
	found := make([][]int, len(parts))
	var summary []string
	for range b.N {
		for _, p := range chosen {
			part := parts[p]
			b.Setenv("LOCKLAB_EXPLORE", strings.TrimPrefix(part.knobs+",shrink=off", ","))
			found[p] = make([]int, len(locks))
			var hits []int
			var times []time.Duration
			start := time.Now()
			for i, l := range locks {
				t0 := time.Now()
				res, err := locktest.Explore(context.Background(), l.config(addr, redistest.Key(b)+":"+l.name),
					locktest.ExploreOptions{Seed: seed, Runs: runs, Budget: budget})
				fmt.Printf("%s: %s: %s in %v\n", part.knobs, l.name, res.Verdict, time.Since(t0).Round(100*time.Millisecond))
				if err != nil || res.Verdict != locktest.Breaks {
					continue
				}
				found[p][i] = countArgs(res.Message)[1]
				hits = append(hits, found[p][i])
				times = append(times, time.Since(t0))
			}
			summary = append(summary, fmt.Sprintf("| %s | %d of %d | %s | %s | %v |", part.name, len(hits), len(locks),
				median(hits, func(n int) string { return strconv.Itoa(n) }),
				median(times, func(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }),
				time.Since(start).Round(time.Second)))
			fmt.Println(summary[len(summary)-1])
		}
	}
	var rows []string
	for i, l := range locks {
		row := "| " + l.name
		for _, p := range chosen {
			if found[p][i] > 0 {
				row += fmt.Sprintf(" | %d", found[p][i])
			} else {
				row += " | missed"
			}
		}
		rows = append(rows, row+" |")
	}
	table := fmt.Sprintf("On %d locks that break, from seed %d, at most %d runs or %v each, unshrunk:\n\n", len(locks), seed, runs, budget) +
		"| schedules | found | median runs to the first find | median time to it | time, all locks |\n|---|---|---|---|---|\n" +
		strings.Join(summary, "\n") + "\n\nThe runs each took to find each lock (columns in the order above):\n\n" +
		header + "\n|---|" + strings.Repeat("---|", len(chosen)) + "\n" + strings.Join(rows, "\n") + "\n"
	fmt.Println(table)
	if *explorerDocs != "" {
		for _, page := range []string{"explorer.md", "zh/explorer.md"} {
			if err := writeBlock(filepath.Join(*explorerDocs, page), "explorer:parts", table); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// median writes the median of xs, or a dash when there is none.
func median[T int | time.Duration](xs []T, write func(T) string) string {
	if len(xs) == 0 {
		return "—"
	}
	s := slices.Sorted(slices.Values(xs))
	return write(s[len(s)/2])
}
