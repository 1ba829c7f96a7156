package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/matrixrun"
)

// exploreFlags are -explore, -seed and -for: explore generated runs of
// each strategy (locktest.Explore) instead of checking the properties.
type exploreFlags struct {
	on     *bool
	seed   *int64
	budget *time.Duration
}

// defaultExploreRuns bounds an exploration given neither -runs nor -for.
const defaultExploreRuns = 500

func addExploreFlags(fs *flag.FlagSet) exploreFlags {
	return exploreFlags{
		on:     fs.Bool("explore", false, "explore generated runs of each strategy (clients, faults, schedules drawn from a seed), judge their histories, and shrink the first violation; -runs and -for bound it (500 runs by default)"),
		seed:   fs.Int64("seed", 0, "with -explore, the `seed` of the first run's plan (run i draws from seed+i); 0: a random one, which the output names"),
		budget: fs.Duration("for", 0, "with -explore, explore each strategy for at most `DURATION`"),
	}
}

// exploration is what -explore asks for.
type exploration struct {
	seed   int64
	runs   int
	budget time.Duration
}

// apply checks the explore flags against the others; fs has been parsed.
func (x exploreFlags) apply(opts *options, fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !*x.on {
		for _, name := range []string{"seed", "for"} {
			if set[name] {
				return usageError{fmt.Sprintf("-%s bounds -explore: give -explore too", name)}
			}
		}
		return nil
	}
	for _, name := range []string{"update", "property", "trace", "width", "granularity"} {
		if set[name] {
			return usageError{fmt.Sprintf("-explore runs no property of the suite: drop -%s", name)}
		}
	}
	if *x.budget < 0 {
		return usageError{fmt.Sprintf("-for %v: want a positive duration", *x.budget)}
	}
	ex := &exploration{seed: *x.seed, budget: *x.budget}
	if set["runs"] {
		ex.runs = opts.runs
	} else if ex.budget == 0 {
		ex.runs = defaultExploreRuns
	}
	opts.explore = ex
	return nil
}

// explore runs the exploration of opts.
func explore(opts options) matrixrun.Exploration {
	var entries []catalog.Entry
	for _, part := range opts.parts {
		entries = append(entries, part.Entries...)
	}
	return matrixrun.Exploration{Target: opts.redisAddr, TLS: opts.tls, Entries: entries,
		Seed: opts.explore.seed, Runs: opts.explore.runs, Budget: opts.explore.budget, Timeout: opts.timeout}
}
