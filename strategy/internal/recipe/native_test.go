package recipe

import (
	"testing"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/internal/redigoconn"
)

// TestContextNative: the adapters' connections say that they take a
// context as it is; redigo's say nothing, and are worked around.
func TestContextNative(t *testing.T) {
	if !contextNative(redigoconn.New(nil)) {
		t.Error("an adapter's connection (redigoconn.Conn) is not taken as context-native")
	}
	var plain redis.Conn = redis.NewLoggingConn(nil, nil, "")
	if contextNative(plain) {
		t.Error("a redigo connection is taken as context-native")
	}
}
