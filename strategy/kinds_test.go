package strategy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
)

// rw answers each acquire with the error that names it, so that a test
// sees which one a call reached.
type rw struct{}

var errWrite, errRead = errors.New("write"), errors.New("read")

func (rw) TryAcquire(context.Context, string, time.Duration) (strategy.Lock, error) {
	return nil, errWrite
}

func (rw) TryAcquireShared(context.Context, string, time.Duration) (strategy.Lock, error) {
	return nil, errRead
}

type sem struct{ rw }

func (sem) Permits() int { return 3 }

// TestKinds: a lock's kind is read from the interfaces it implements, and
// Reader turns a read-write lock's shared acquire into a Strategy's.
func TestKinds(t *testing.T) {
	assert.Equal(t, strategy.ReadWrite, strategy.KindOf(rw{}))
	assert.Equal(t, strategy.Semaphore, strategy.KindOf(struct{ strategy.Counting }{sem{}}))
	assert.Equal(t, strategy.Mutex, strategy.KindOf(struct{ strategy.Strategy }{rw{}}))

	_, err := strategy.Reader(rw{}).TryAcquire(context.Background(), "k", time.Second)
	assert.ErrorIs(t, err, errRead)
	_, err = strategy.Acquire(context.Background(), strategy.Reader(rw{}), "k", time.Second, strategy.NoRetry())
	assert.ErrorIs(t, err, errRead, "Acquire waits for a read lock through Reader")
}
