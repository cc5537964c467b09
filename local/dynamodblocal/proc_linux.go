package dynamodblocal

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the JVM in its own process group, so a Ctrl-C in the
// terminal reaches only the Go process, which then shuts down in order,
// and asks the kernel to SIGKILL the JVM when its parent dies, so even a
// killed test binary or server leaves no orphan Java process. (Pdeathsig
// follows the thread that started the child; Go only retires threads that
// were locked by a goroutine, and Start is never called from one.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
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
