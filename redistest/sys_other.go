//go:build !linux

package redistest

import "syscall"

// sysProcAttr: only Linux can tie the child's life to its parent's; on
// other systems a crashed test binary may leave redis-server running.
func sysProcAttr() *syscall.SysProcAttr { return nil }
