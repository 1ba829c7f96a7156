package explore

import (
	"testing"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPausedAtReads: a plan's pause is written in the timeline inside the
// client's "paused {0}", and must read as one sentence there.
func TestPausedAtReads(t *testing.T) {
	paused, ok := msg.Defs()["client.paused"]
	require.True(t, ok)
	m := paused.New(mPausedAt.New(1, 60*time.Millisecond))
	assert.Equal(t, "paused before its command 1 of the operation, for 60ms", msg.Render(msg.English, m))
	assert.Equal(t, "在这次操作的第 1 条命令之前（停顿 60ms）暂停", msg.Render(msg.Lang("zh"), m))
}
