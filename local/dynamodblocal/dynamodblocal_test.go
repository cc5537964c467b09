package dynamodblocal

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether a process with this pid exists (and is not a zombie
// waiting to be reaped by a parent that is gone).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return runtime.GOOS != "linux"
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("java process %d still running", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStart_answersAndStopLeavesNoProcess(t *testing.T) {
	t.Parallel()
	inst, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inst.Stop() })
	if err := ping(context.Background(), http.DefaultClient, inst.Endpoint); err != nil {
		t.Fatalf("ListTables on %s: %v", inst.Endpoint, err)
	}
	pid := inst.PID()
	if err := inst.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := inst.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	waitGone(t, pid)
}

// helperEnv makes the test binary act as a parent that starts DynamoDB
// Local and then is killed without any chance to clean up.
const helperEnv = "DYNAMODBLOCAL_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		inst, err := Start(context.Background(), Options{})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println(inst.PID(), inst.Endpoint)
		select {} // wait to be killed
	}
	os.Exit(m.Run())
}

func TestParentKilled_javaDies(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux only")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper: %v (%q)", err, line)
	}
	var pid int
	var endpoint string
	if _, err := fmt.Sscan(line, &pid, &endpoint); err != nil {
		t.Fatalf("helper said %q", line)
	}
	if !alive(pid) {
		t.Fatalf("java %d not running while its parent lives", pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, pid)
}

func TestStart_errors(t *testing.T) {
	t.Run("no_node_modules", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := FindPackage(filepath.Join(dir))
		if err == nil || !strings.Contains(err.Error(), "run `npm ci` (make does it for you)") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("no_java", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		t.Setenv("JAVA_HOME", "")
		_, err := Start(context.Background(), Options{})
		want := "Java 17+ is required to run DynamoDB Local (apt-get install openjdk-17-jre-headless)"
		if err == nil || err.Error() != want {
			t.Fatalf("error = %v, want %q", err, want)
		}
	})
	t.Run("module_root_from_subdirectory", func(t *testing.T) {
		root, err := ModuleRoot("")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(filepath.ToSlash(mustWd(t)), filepath.ToSlash(root)+"/local/dynamodblocal") {
			t.Fatalf("root %s is not above %s", root, mustWd(t))
		}
	})
}

func mustWd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
