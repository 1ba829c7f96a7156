package strategy_test

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		key string
		ttl time.Duration
		err error
	}{
		{"k", time.Millisecond, nil},
		{"k", time.Hour, nil},
		{"k", time.Millisecond + 500*time.Microsecond, nil},
		{"", time.Second, strategy.ErrInvalidKey},
		{"", 0, strategy.ErrInvalidKey},
		{"k", 0, strategy.ErrInvalidTTL},
		{"k", -time.Second, strategy.ErrInvalidTTL},
		{"k", 500 * time.Microsecond, strategy.ErrInvalidTTL},
		{"k", time.Millisecond - 1, strategy.ErrInvalidTTL},
	} {
		err := strategy.Validate(tc.key, tc.ttl)
		if tc.err == nil {
			assert.NoError(t, err, "key %q ttl %v", tc.key, tc.ttl)
		} else {
			assert.ErrorIs(t, err, tc.err, "key %q ttl %v", tc.key, tc.ttl)
		}
	}
}

func TestCheckPool(t *testing.T) {
	for _, p := range []strategy.Pool{nil, (*redis.Pool)(nil)} {
		err := strategy.CheckPool("x", p)
		require.ErrorIs(t, err, strategy.ErrNilPool, "pool %#v", p)
		assert.Contains(t, err.Error(), "x")
	}
	assert.NoError(t, strategy.CheckPool("x", redistest.Pool(t)))
}

func TestOpError(t *testing.T) {
	cause := fmt.Errorf("wrapped: %w", io.ErrUnexpectedEOF)
	err := error(&strategy.OpError{Strategy: "getset", Op: "GETSET", Key: "a b", Err: cause})
	assert.Equal(t, `getset: GETSET "a b": wrapped: unexpected EOF`, err.Error())
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	wrapped := fmt.Errorf("outer: %w", err)
	var oe *strategy.OpError
	require.ErrorAs(t, wrapped, &oe)
	assert.Equal(t, "GETSET", oe.Op)
	assert.Same(t, cause, errors.Unwrap(err))
}

func TestErrorsDistinct(t *testing.T) {
	all := []error{strategy.ErrNotAcquired, strategy.ErrNotHeld, strategy.ErrInvalidKey,
		strategy.ErrInvalidTTL, strategy.ErrNilPool, strategy.ErrBadValue}
	for i, a := range all {
		for j, b := range all {
			assert.Equal(t, i == j, errors.Is(a, b), "%v vs %v", a, b)
		}
	}
}

func TestClocks(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, fixed, strategy.ClockFunc(func() time.Time { return fixed }).Now())

	before := time.Now()
	now := strategy.SystemClock.Now()
	assert.False(t, now.Before(before))
	assert.False(t, now.After(time.Now()))
}
