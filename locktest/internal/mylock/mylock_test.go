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
	newLock := func(c locktest.Client) (strategy.Strategy, error) {
		return mylock.New(c.Pool) // read the time from c.Clock, if your lock reads it
	}
	locktest.Run(t, newLock, locktest.Expect{
		Breaks: []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
	})
}
