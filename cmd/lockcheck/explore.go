package main

import (
	"flag"

	"github.com/locklab/locklab/matrixrun"
)

// The flags that mean nothing to -explore.
var notExplored = []string{"update", "property", "trace", "width", "granularity"}

// applyExplore checks the explore flags against the others; fs has been
// parsed.
func applyExplore(x matrixrun.ExploreFlags, opts *options, fs *flag.FlagSet) error {
	ex, err := x.Bounds(fs, notExplored, opts.runs)
	if err != nil {
		return usageError{err.Error()}
	}
	opts.explore = ex
	return nil
}

// explore is the exploration of opts, on the entries of its parts.
func explore(opts options) matrixrun.Exploration {
	x := *opts.explore
	for _, part := range opts.parts {
		x.Entries = append(x.Entries, part.Entries...)
	}
	x.Target, x.TLS, x.Timeout = opts.redisAddr, opts.tls, opts.timeout
	return x
}
