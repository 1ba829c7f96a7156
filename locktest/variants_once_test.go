package locktest_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
)

// variantRuns are the results of the correct variants of both corpora,
// each run once on every property its tests ask of it: a variant is the
// base of several mutants (TestMutants, TestKindMutants), whose verdicts
// are compared with its own, and is judged itself (TestCorrectVariants,
// TestKindVariants). Run once, shared by all of them, rather than once
// for each mutant.
var variantRuns sync.Map // the variant's corpus and name → *variantRun

type variantRun struct {
	once    sync.Once
	results map[locktest.Property]locktest.Result
}

// variantResults runs props on the variant the corpus calls name, which
// newLock builds, the first time it is asked for, and gives the results
// of that run every time. Every call for a variant must ask for the same
// props.
func variantResults(t *testing.T, corpus, name string, newLock locktest.Factory, props []locktest.Property) map[locktest.Property]locktest.Result {
	t.Helper()
	v, _ := variantRuns.LoadOrStore(corpus+"/"+name, &variantRun{})
	run := v.(*variantRun)
	run.once.Do(func() {
		cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: newLock, Key: redistest.Key(t)}
		run.results = make(map[locktest.Property]locktest.Result, len(props))
		for _, p := range props {
			// A check the machine disturbed in each of its runs says
			// nothing about the variant, and every mutant built on it
			// would inherit its error: it is run again, twice at most.
			res := locktest.Check(context.Background(), cfg, p)
			for try := 2; try <= 3 && errors.Is(res.Err, locktest.ErrInconclusive); try++ {
				t.Logf("%s %s, try %d: %v", name, p, try, res.Err)
				res = locktest.Check(context.Background(), cfg, p)
			}
			run.results[p] = res
		}
	})
	return run.results
}

// eachResult hands each of props' results in results to see, in props'
// order.
func eachResult(results map[locktest.Property]locktest.Result, props []locktest.Property, see func(locktest.Property, locktest.Result)) {
	for _, p := range props {
		see(p, results[p])
	}
}
