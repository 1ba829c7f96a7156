//go:build !unix

package strategytest

import "testing"

// HangingAddr returns an address where connecting hangs: one that routes
// nowhere on most networks.
func HangingAddr(testing.TB) string { return "10.255.255.1:6379" }
