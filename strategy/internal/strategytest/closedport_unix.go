//go:build unix

package strategytest

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// ClosedPort returns 127.0.0.1:<port> where nothing listens: connections are
// refused at once. The port stays bound, never listening, until the test
// ends, so that no server started meanwhile (a container's published port,
// another test's Redis) takes it and answers in its place.
func ClosedPort(tb testing.TB) string {
	tb.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(tb, err)
	tb.Cleanup(func() { syscall.Close(fd) })
	require.NoError(tb, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	require.NoError(tb, err)
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
