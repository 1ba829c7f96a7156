//go:build !unix

package process

import (
	"os"
	"os/exec"
)

func setGroup(*exec.Cmd) {}

// killGroup kills the program; what it started is left to end with its
// standard input.
func killGroup(p *os.Process) { p.Kill() }
