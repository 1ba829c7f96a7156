package rwlua

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// woken says whether c holds a wake, and takes it.
func woken(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// A release wakes one waiting writer when any waits, and the readers
// only when none does; a writer that leaves with its wake unused passes
// it on.
func TestRoomsWakeWritersFirst(t *testing.T) {
	var rs rooms
	r1, stopR1 := rs.wait("k", true)
	r2, stopR2 := rs.wait("k", true)
	w, stopW := rs.wait("k", false)
	rs.freed("k")
	rs.freed("k") // the writer woken already is enough
	assert.False(t, woken(r1) || woken(r2), "readers woken while a writer waits")
	assert.Len(t, w, 1, "the writer was not woken")
	rs.freed("other")
	stopW() // gave up with its wake unused: the readers get it
	assert.True(t, woken(r1) && woken(r2))
	stopR1()
	stopR2()
	assert.Empty(t, rs.keys, "a room left behind")
}

// The readers a release wakes have their turn: a writer of the Strategy
// that tries meanwhile waits, until each has tried or left, or turnWait.
func TestRoomsReadersTurn(t *testing.T) {
	var rs rooms
	ctx := context.Background()
	rs.writing(ctx, "k") // nobody woken: no wait
	r1, stopR1 := rs.wait("k", true)
	_, stopR2 := rs.wait("k", true)
	rs.freed("k")
	turn := rs.keys["k"].turn
	require.NotNil(t, turn)
	assert.Equal(t, 2, rs.keys["k"].woken)

	waited := time.Now()
	rs.writing(ctx, "k")
	assert.GreaterOrEqual(t, time.Since(waited), turnWait, "the writer did not wait for the readers' turn")

	require.True(t, woken(r1))
	rs.reading("k") // r1 tries
	assert.Equal(t, 1, rs.keys["k"].woken)
	stopR2() // r2 leaves, its wake unused: the turn is over
	select {
	case <-turn:
	default:
		t.Fatal("the turn did not end when every woken reader had tried or left")
	}
	assert.Nil(t, rs.keys["k"].turn)
	stopR1()
	assert.Empty(t, rs.keys)
}
