//go:build unix

package runinfo

import (
	"errors"
	"syscall"
)

// alive reports whether a process exists (signal 0 checks without
// sending anything; EPERM means it exists but belongs to another user).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
