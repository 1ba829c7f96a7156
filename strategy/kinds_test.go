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

// rwn is an rw whose readers and writers subscribe apart: each channel
// says which Subscribe made it.
type rwn struct {
	rw
	writers, readers chan struct{}
}

func (n rwn) Subscribe(context.Context, string) (<-chan struct{}, func(), error) {
	return n.writers, func() {}, nil
}

func (n rwn) SubscribeShared(context.Context, string) (<-chan struct{}, func(), error) {
	return n.readers, func() {}, nil
}

// TestReaderSubscribesShared: Reader keeps a Notifier's wake-ups, and a
// SharedNotifier's readers wait with SubscribeShared, not Subscribe.
func TestReaderSubscribesShared(t *testing.T) {
	n := rwn{writers: make(chan struct{}), readers: make(chan struct{})}
	sub, ok := strategy.Reader(n).(strategy.Notifier)
	if !assert.True(t, ok, "Reader dropped the wake-ups") {
		return
	}
	c, _, err := sub.Subscribe(context.Background(), "k")
	assert.NoError(t, err)
	assert.Equal(t, (<-chan struct{})(n.readers), c)
	_, isEager := strategy.Reader(n).(strategy.EagerNotifier)
	assert.True(t, isEager && !strategy.Reader(n).(strategy.EagerNotifier).SubscribeFirst(),
		"a reader subscribes first when its lock does, not otherwise")
	e := strategy.Reader(eagerRWN{n}).(strategy.EagerNotifier)
	assert.True(t, e.SubscribeFirst(), "the reader of an eager lock does not subscribe first")

	plain, ok := strategy.Reader(struct {
		rw
		strategy.Notifier
	}{Notifier: n}).(strategy.Notifier)
	if assert.True(t, ok) {
		c, _, _ = plain.Subscribe(context.Background(), "k")
		assert.Equal(t, (<-chan struct{})(n.writers), c, "a Notifier's readers wait with Subscribe")
	}
}

// eagerRWN is an rwn whose subscriptions come first.
type eagerRWN struct{ rwn }

func (eagerRWN) SubscribeFirst() bool { return true }
