// Command bench measures the figures the closing note reports: the size of
// each Lambda bootstrap, the cold start of one function process, the
// DynamoDB calls and sequential depth of every endpoint, latency and
// throughput of the local run under load, the catalog's import rate and
// search latency and read units at each catalog size, the latency of a
// wishlist's single view with 200 books, and the cost per million
// requests of a read-heavy mix. `examples` (not part of `all`) records
// the API reference's examples from the call scenario.
//
// Each figure has its own subcommand, so a reader can reproduce one number
// without running the rest; `all` runs them in order and writes one report
// (`make bench` calls it). Every section of the report names the command
// that produced it.
//
//	go run ./local/bench sizes      [-dir build]
//	go run ./local/bench coldstart  [-fn health,auth,users,authorizer] [-n 20]
//	go run ./local/bench calls      (runs go test ./local/bench -run TestCallCounts)
//	go run ./local/bench load       [-me-duration 10s] [-login-duration 10s] ...
//	go run ./local/bench catalog    [-sizes 10000,100000] [-rounds 40] (runs go test ./local/bench -run TestCatalogBench)
//	go run ./local/bench clublines  [-rounds 300] (runs go test ./local/bench -run TestClubLinesBench)
//	go run ./local/bench wishlist   [-items 200] [-rounds 300] (runs go test ./local/bench -run TestWishlistViewLatency)
//	go run ./local/bench stores     [-count 5000] [-queries 500] (runs go test ./local/bench -run TestStoresBench)
//	go run ./local/bench inventory  [-items 20000] [-rounds 40] (runs go test ./local/bench -run TestInventoryBench)
//	go run ./local/bench orders     [-orders 300] (runs go test ./local/bench -run TestOrdersBench)
//	go run ./local/bench pos        [-sales 300] [-day 2000] [-rounds 200] (runs go test ./local/bench -run TestPOSBench)
//	go run ./local/bench cost       [-rounds 3] (runs go test ./local/bench -run TestCost)
//	go run ./local/bench all        [-out bench-out/report.txt]
//	go run ./local/bench examples   [-o shared/openapi/examples.json] (runs go test ./local/bench -run TestRecordExamples)
//
// The DynamoDB call counts and the catalog figures are tests (calls_test.go,
// catalog_test.go) because the test environment (local/testenv) is built on
// testing.TB; running the first under `go test ./...` also keeps the rule
// that every route has a scenario. The catalog one runs only with
// BENCH_SEARCH=1: it imports 18,000 books; the wishlist one only with
// BENCH_WISHLIST=1; the stores one only with BENCH_STORES=1: it writes
// 5,000 stores; the inventory one at its full size (20,000 items in one
// store) only with BENCH_INVENTORY=1, at a tiny size otherwise.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/bookplatform/backend/local/dynamodblocal"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	root, err := dynamodblocal.ModuleRoot("")
	if err != nil {
		fatal(err)
	}
	// Every path below (build/, bench-out/, ./functions/...) is relative to
	// the module root, whatever directory the command was started from.
	if err := os.Chdir(root); err != nil {
		fatal(err)
	}
	cmd, args := os.Args[1], os.Args[2:]
	var run func(io.Writer, []string) error
	switch cmd {
	case "sizes":
		run = runSizes
	case "coldstart":
		run = runColdStart
	case "calls":
		run = runCalls
	case "load":
		run = runLoad
	case "catalog":
		run = runCatalog
	case "clublines":
		run = runClubLines
	case "wishlist":
		run = runWishlist
	case "stores":
		run = runStores
	case "inventory":
		run = runInventory
	case "orders":
		run = runOrders
	case "pos":
		run = runPOS
	case "webhooks":
		run = runWebhooks
	case "cost":
		run = runCost
	case "examples":
		run = runExamples
	case "all":
		run = runAll
	default:
		usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, args); err != nil {
		fatal(err)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go run ./local/bench sizes|coldstart|calls|load|catalog|clublines|wishlist|stores|inventory|orders|pos|webhooks|cost|examples|all [flags]  (-h on a subcommand lists its flags)")
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

// runAll runs every section into one report. A failing section is written
// into the report as FAILED and the others still run, so one broken part
// does not hide the figures of the rest; the exit status is still non-zero.
func runAll(stdout io.Writer, args []string) error {
	fs := flag.NewFlagSet("all", flag.ExitOnError)
	out := fs.String("out", "bench-out/report.txt", "also write the report to this file")
	n := fs.Int("n", 20, "cold starts per function")
	meDur := fs.Duration("me-duration", 10*time.Second, "load duration of GET /v1/users/me")
	loginDur := fs.Duration("login-duration", 10*time.Second, "load duration of POST /v1/auth/login")
	_ = fs.Parse(args)

	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := io.MultiWriter(stdout, f)

	fmt.Fprintf(w, "Benchmark report, %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "machine: %s/%s, %d CPUs, %s; client, server and DynamoDB Local share it\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	// Timings mean little on a machine busy with other work: say how busy it was.
	if la := loadAverage(); la != "" {
		fmt.Fprintf(w, "load average at start: %s\n", la)
	}

	sections := []struct {
		name string
		run  func(io.Writer, []string) error
		args []string
	}{
		{"sizes", runSizes, nil},
		{"coldstart", runColdStart, []string{"-n", fmt.Sprint(*n)}},
		{"calls", runCalls, nil},
		{"load", runLoad, []string{"-me-duration", meDur.String(), "-login-duration", loginDur.String()}},
		{"catalog", runCatalog, nil},
		{"clublines", runClubLines, nil},
		{"wishlist", runWishlist, nil},
		{"stores", runStores, nil},
		{"inventory", runInventory, nil},
		{"orders", runOrders, nil},
		{"pos", runPOS, nil},
		{"webhooks", runWebhooks, nil},
		{"cost", runCost, nil},
	}
	var failed []string
	for _, s := range sections {
		fmt.Fprintln(w)
		start := time.Now()
		if err := s.run(w, s.args); err != nil {
			fmt.Fprintf(w, "FAILED: %v\n", err)
			failed = append(failed, s.name)
		}
		fmt.Fprintf(os.Stderr, "bench: %s took %s\n", s.name, time.Since(start).Round(100*time.Millisecond))
	}
	if la := loadAverage(); la != "" {
		fmt.Fprintf(w, "\nload average at end: %s\n", la)
	}
	fmt.Fprintf(w, "report written to %s\n", *out)
	if len(failed) > 0 {
		return fmt.Errorf("sections failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// section prints a heading and the command that reproduces the figures below it.
func section(w io.Writer, title, command string) {
	fmt.Fprintf(w, "== %s\n   command: %s\n", title, command)
}

// progress goes to stderr so the report on stdout stays compact.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// loadAverage returns the 1, 5 and 15 minute load averages (Linux), or "".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// testFigure is a figure measured by a test of this package (one built on
// local/testenv, which needs testing.TB): its pattern for -run, the
// variable that turns it on (empty: always on), its go test timeout
// (empty: go test's default), the test flag naming the file it writes
// its table to, and the other test flags.
type testFigure struct {
	run, env, timeout, outFlag string
	args                       []string
	// pkg is the test's package (default ./local/bench); envValue the
	// value env is set to (default 1).
	pkg, envValue string
}

// runTestFigure runs f's test and copies the table it wrote into w, even
// when the test failed after writing part of it.
func runTestFigure(w io.Writer, f testFigure) error {
	dir, err := os.MkdirTemp("", "bench-"+f.outFlag)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	table := filepath.Join(dir, "table.txt")
	pkg := f.pkg
	if pkg == "" {
		pkg = "./local/bench"
	}
	args := []string{"test", pkg, "-run", f.run, "-count=1"}
	if f.timeout != "" {
		args = append(args, "-timeout", f.timeout)
	}
	args = append(append(args, "-args", "-"+f.outFlag+"="+table), f.args...)
	cmd := exec.Command("go", args...)
	if f.env != "" {
		v := f.envValue
		if v == "" {
			v = "1"
		}
		cmd.Env = append(os.Environ(), f.env+"="+v)
	}
	out, runErr := cmd.CombinedOutput()
	if data, err := os.ReadFile(table); err == nil {
		_, _ = w.Write(data)
	}
	if runErr != nil {
		return fmt.Errorf("go test %s -run %s: %v\n%s", pkg, f.run, runErr, out)
	}
	return nil
}
