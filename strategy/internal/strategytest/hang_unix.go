//go:build unix

package strategytest

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// HangingAddr returns an address where connecting hangs, like an address
// whose packets a firewall drops: a loopback socket that listens with the
// smallest accept queue, fills it, and never accepts, so that the kernel
// ignores further connection attempts.
func HangingAddr(tb testing.TB) string {
	tb.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(tb, err)
	tb.Cleanup(func() { syscall.Close(fd) })
	require.NoError(tb, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	require.NoError(tb, syscall.Listen(fd, 0))
	sa, err := syscall.Getsockname(fd)
	require.NoError(tb, err)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))

	// Connect until a connection attempt hangs: the queue is then full.
	for i := 0; ; i++ {
		require.Less(tb, i, 64, "the accept queue of %s does not fill up", addr)
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			var ne net.Error
			require.True(tb, errors.As(err, &ne) && ne.Timeout(), "filling the accept queue: %v", err)
			return addr
		}
		tb.Cleanup(func() { c.Close() })
	}
}
