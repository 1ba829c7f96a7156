package lock

import (
	"os"
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func TestConformance(t *testing.T) {
	if os.Getenv("LOCKLAB_EXERCISE") == "" {
		t.Skip("an exercise, which fails until lock.go is fixed: run it with LOCKLAB_EXERCISE=1 go test ./docs/exercises/01-setnx-expire (see docs/exercises/README.md)")
	}
	newLock := func(c locktest.Client) (strategy.Strategy, error) {
		return New(c.Pool)
	}
	locktest.Run(t, newLock, locktest.Expect{
		Breaks: []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
	})
}
