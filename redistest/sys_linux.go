//go:build linux

package redistest

import "syscall"

// sysProcAttr has the kernel kill redis-server when the thread that
// started it exits, so that a test binary that crashes or is killed does
// not leave it running. The Go runtime only ends a thread whose goroutine
// locked it and exited, which the code starting the process never does.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
