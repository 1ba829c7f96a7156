package strategy_test

import (
	"context"
	"testing"

	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
)

// plainLock offers neither a fencing token nor a lease.
type plainLock struct{}

func (plainLock) Key() string                   { return "k" }
func (plainLock) Release(context.Context) error { return nil }

// optionLock has the methods, and reports through ok whether each option
// is on.
type optionLock struct {
	plainLock
	fence int64
	lease context.Context
}

func (l optionLock) FencingToken() (int64, bool)    { return l.fence, l.fence != 0 }
func (l optionLock) Lease() (context.Context, bool) { return l.lease, l.lease != nil }

// FencingToken and Lease report what a lock offers: nothing for a lock
// without the methods, and what the methods say otherwise.
func TestCapabilityHelpers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []struct {
		name           string
		l              strategy.Lock
		token          int64
		fenced, leased bool
	}{
		{"no methods", plainLock{}, 0, false, false},
		{"options off", optionLock{}, 0, false, false},
		{"fencing on", optionLock{fence: 7}, 7, true, false},
		{"lease on", optionLock{lease: ctx}, 0, false, true},
	} {
		token, fenced := strategy.FencingToken(c.l)
		assert.Equal(t, c.fenced, fenced, c.name)
		assert.Equal(t, c.token, token, c.name)
		lease, leased := strategy.Lease(c.l)
		assert.Equal(t, c.leased, leased, c.name)
		if c.leased {
			assert.Equal(t, ctx, lease, c.name)
		} else {
			assert.Nil(t, lease, c.name)
		}
	}
}
