package harness

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateLeftBeforeItsTurn: a command whose connection closes while it
// waits at the gate (a library that cancels a command it no longer
// needs) leaves it, and the scheduler's grant of its turn returns at
// once; a command that waits takes its grant.
func TestGateLeftBeforeItsTurn(t *testing.T) {
	r := &Run{Env: &sim.Env{Ctx: context.Background()}}
	s := newScheduler(r, 2)

	// B waits, and takes its turn.
	waited := make(chan error, 1)
	go func() { waited <- s.gate(1)(context.Background(), "SET") }()
	s.record(s.next())
	s.grant(1)
	require.NoError(t, <-waited)

	// A's connection closes while it waits.
	ctx, cancel := context.WithCancel(context.Background())
	gave := make(chan error, 1)
	go func() { gave <- s.gate(0)(ctx, "SET") }()
	s.record(s.next())
	cancel()
	assert.ErrorIs(t, <-gave, context.Canceled)
	granted := make(chan struct{})
	go func() {
		s.grant(0)
		close(granted)
	}()
	select {
	case <-granted:
	case <-time.After(5 * time.Second):
		t.Fatal("the scheduler waited for a command that had left the gate")
	}
}
