package luatoken

import (
	"testing"
	"time"
)

// HubState returns how many channels the notification hub of s tracks and
// whether its goroutine runs (0 and false without WithNotify).
func HubState(s *Strategy) (channels int, running bool) {
	if s.hub == nil {
		return 0, false
	}
	return s.hub.State()
}

// SetDefaultMaxHold makes the strategies New builds during t cap their
// renewing locks at d when WithMaxHold does not say, instead of
// DefaultMaxHold. t must not be parallel.
func SetDefaultMaxHold(t *testing.T, d time.Duration) {
	old := defaultMaxHold
	defaultMaxHold = d
	t.Cleanup(func() { defaultMaxHold = old })
}

// LuatokenReleaseSrc is the release script's source, for the benchmark's
// commands by hand.
var LuatokenReleaseSrc = releaseSrc
