//go:build unix

package redistest

import (
	"os"
	"syscall"
)

// terminate asks the process to shut down cleanly.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
