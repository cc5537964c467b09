//go:build !unix

package dynamodblocal

import (
	"os/exec"
	"syscall"
)

// sysProcAttr has nothing to set where there are no process groups.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// terminate has no gentle form here; kill is used.
func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// kill ends the process.
func kill(cmd *exec.Cmd) error { return cmd.Process.Kill() }
