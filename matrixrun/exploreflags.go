package matrixrun

import (
	"flag"
	"fmt"
	"time"
)

// ExploreFlags are -explore, -seed and -for, which lockcheck and
// peercheck share: explore generated runs of each strategy
// (locktest.Explore) instead of checking the properties. -runs is each
// command's own flag.
type ExploreFlags struct {
	on     *bool
	seed   *int64
	budget *time.Duration
}

// DefaultExploreRuns bounds an exploration given neither -runs nor -for.
const DefaultExploreRuns = 500

// AddExploreFlags defines the explore flags on fs.
func AddExploreFlags(fs *flag.FlagSet) ExploreFlags {
	return ExploreFlags{
		on:     fs.Bool("explore", false, "explore generated runs of each strategy (clients, faults, schedules drawn from a seed), judge their histories, and shrink the first violation; -runs and -for bound it (500 runs by default)"),
		seed:   fs.Int64("seed", 0, "with -explore, the `seed` of the first run's plan (run i draws from seed+i); 0: a random one, which the output names"),
		budget: fs.Duration("for", 0, "with -explore, explore each strategy for at most `DURATION`"),
	}
}

// On reports whether -explore was given.
func (x ExploreFlags) On() bool { return *x.on }

// Bounds checks the explore flags against the others, once fs is
// parsed: refused names the flags that mean nothing to an exploration,
// runs is the value of -runs. It returns the exploration's seed and
// bounds (nil without -explore), or what is wrong with the command line.
func (x ExploreFlags) Bounds(fs *flag.FlagSet, refused []string, runs int) (*Exploration, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !*x.on {
		for _, name := range []string{"seed", "for"} {
			if set[name] {
				return nil, fmt.Errorf("-%s bounds -explore: give -explore too", name)
			}
		}
		return nil, nil
	}
	for _, name := range refused {
		if set[name] {
			return nil, fmt.Errorf("-explore runs no property of the suite: drop -%s", name)
		}
	}
	if *x.budget < 0 {
		return nil, fmt.Errorf("-for %v: want a positive duration", *x.budget)
	}
	ex := &Exploration{Seed: *x.seed, Budget: *x.budget}
	if set["runs"] {
		ex.Runs = runs
	} else if ex.Budget == 0 {
		ex.Runs = DefaultExploreRuns
	}
	return ex, nil
}
