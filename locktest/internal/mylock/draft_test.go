package mylock_test

import (
	"os"
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/locktest/internal/mylock"
	"github.com/locklab/locklab/strategy"
)

// TestDraft is TestConformance on the first draft, which fails: it runs
// only in the child processes of TestDraftOutput.
func TestDraft(t *testing.T) {
	if os.Getenv("MYLOCK_DRAFT") == "" {
		t.Skip("fails on purpose; TestDraftOutput runs it")
	}
	newLock := func(c locktest.Client) (strategy.Strategy, error) {
		return mylock.NewDraft(c.Pool)
	}
	locktest.Run(t, newLock, locktest.Expect{
		Breaks: []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
	})
}
