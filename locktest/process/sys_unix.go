//go:build unix

package process

import (
	"os"
	"os/exec"
	"syscall"
)

// setGroup starts the program in a process group of its own, so that a
// crash kills whatever it started too (a shell's child, a wrapper's).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to the program's process group.
func killGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		p.Kill()
	}
}
