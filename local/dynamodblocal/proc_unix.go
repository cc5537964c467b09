//go:build unix && !linux

package dynamodblocal

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the JVM in its own process group, so a Ctrl-C in the
// terminal reaches only the Go process, which stops the JVM in order.
// Outside Linux there is no parent-death signal: a Go process killed with
// SIGKILL leaves the JVM running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// terminate asks the process group to exit.
func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// kill ends the process group at once.
func kill(cmd *exec.Cmd) error {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
