package main

import (
	"context"
	"errors"
	"fmt"

	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
)

// localRun is the local server (`go run ./local`) started for a benchmark.
type localRun struct {
	BaseURL string
	dir     string // its module root, holding .local
	logPath string
	cmd     *exec.Cmd
	exited  chan error
}

// startLocalRun builds ./local and starts it on a free port with fresh data.
//
// Its data goes to a fresh bench-out/localrun (LOCAL_DATA_DIR), so neither
// a developer's .local nor a running `make run` (the S3 stand-in's file
// lock) is touched.
//
// The binary is built rather than run through `go run`: a signal sent to
// `go run` does not reach the program it started, and the benchmark must
// stop the server with SIGINT the way a developer's Ctrl-C does.
func startLocalRun(ctx context.Context, root string) (*localRun, error) {
	outDir := filepath.Join(root, "bench-out")
	bin := filepath.Join(outDir, "bin", "local")
	progress("load: building ./local")
	if out, err := exec.Command("go", "build", "-o", bin, "./local").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build ./local: %v\n%s", err, out)
	}

	dir := filepath.Join(outDir, "localrun")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}

	port, err := dynamodblocal.FreePort()
	if err != nil {
		return nil, err
	}
	r := &localRun{
		BaseURL: "http://127.0.0.1:" + strconv.Itoa(port),
		dir:     dir,
		logPath: filepath.Join(outDir, "local-server.log"),
		exited:  make(chan error, 1),
	}
	logFile, err := os.Create(r.logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor

	r.cmd = exec.Command(bin)
	r.cmd.Dir = root
	r.cmd.Env = append(cleanEnv(), config.EnvPort+"="+strconv.Itoa(port), config.EnvLocalDataDir+"="+dir)
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	progress("load: starting the local run on %s (log: %s)", r.BaseURL, r.logPath)
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { r.exited <- r.cmd.Wait() }()

	if err := r.waitHealthy(ctx, 3*time.Minute); err != nil {
		_ = r.stop()
		return nil, err
	}
	return r, nil
}

// cleanEnv is this process's environment without the service's and the
// SDK's variables, so the local run uses its own defaults whatever the
// developer's shell holds.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "AWS_") || slices.Contains(groups.Names(), name) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (r *localRun) waitHealthy(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(r.BaseURL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-r.exited:
			r.exited <- err
			return fmt.Errorf("the local run exited before answering /health (%v); see %s:\n%s", err, r.logPath, tailFile(r.logPath, 2000))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the local run did not answer /health within %s; see %s", timeout, r.logPath)
		}
	}
}

// stop sends SIGINT, as Ctrl-C would, and checks that DynamoDB Local went
// with the server: a JVM left behind would hold memory and the data files.
func (r *localRun) stop() error {
	var errs []error
	_ = r.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-r.exited:
	case <-time.After(30 * time.Second):
		errs = append(errs, errors.New("the local run did not stop within 30s of SIGINT; killed"))
		_ = r.cmd.Process.Kill()
		<-r.exited
	}
	// The JVM is identified by its data directory, which only this run uses.
	dbPath := filepath.Join(r.dir, ".local")
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := processesMentioning(dbPath)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
			errs = append(errs, fmt.Errorf("DynamoDB Local (pid %v) outlived the local run; killed", pids))
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.Join(errs...)
}

// processesMentioning returns the pids whose command line contains s
// (Linux /proc; elsewhere it finds nothing, and the check is skipped).
func processesMentioning(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func tailFile(path string, n int) string {
	data, _ := os.ReadFile(path)
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return string(data)
}
