//go:build !unix

package strategytest

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// ClosedPort returns 127.0.0.1:<port> where nothing listens: connections are
// refused at once (a port closed again, which another server may take
// later where a port cannot be held without listening).
func ClosedPort(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	addr := l.Addr().String()
	require.NoError(tb, l.Close())
	return addr
}
