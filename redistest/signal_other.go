//go:build !unix

package redistest

import "os"

// terminate: without signals, the process can only be killed.
func terminate(p *os.Process) error { return p.Kill() }
