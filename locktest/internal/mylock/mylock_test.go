package mylock_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/locktest/internal/mylock"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func TestConformance(t *testing.T) {
	newLock := func(pool strategy.Pool, clock strategy.Clock) (strategy.Strategy, error) {
		return mylock.New(pool) // read the time from clock, if your lock reads it
	}
	locktest.Run(t, newLock, locktest.Expect{
		Breaks: []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
	})
}
