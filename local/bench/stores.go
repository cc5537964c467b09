package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// EnvBenchStores turns TestStoresBench on: it writes 5,000 stores, too
// long for `make test`, which only checks that it compiles and skips it.
// runStores (and so `make bench`) sets it.
const EnvBenchStores = "BENCH_STORES"

// runStores runs TestStoresBench (stores_test.go) and copies its table
// into the report: latency of GET /v1/stores near a position and of
// GET /v1/stores/lookup-by-domain over generated stores.
func runStores(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("stores", flag.ExitOnError)
	count := fs.Int("count", 5000, "generated stores")
	queries := fs.Int("queries", 500, "measured requests of the main kinds")
	_ = fs.Parse(args)

	section(w, "6. Stores: GET /v1/stores by position and lookup-by-domain latency over generated stores, DynamoDB Local (in memory)",
		EnvBenchStores+"=1 go test ./local/bench -run TestStoresBench -count=1 -v -timeout 30m")
	dir, err := os.MkdirTemp("", "bench-stores")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	table := filepath.Join(dir, "stores.txt")
	progress("stores: go test ./local/bench -run TestStoresBench (writes %d stores, then queries)", *count)
	cmd := exec.Command("go", "test", "./local/bench", "-run", "^TestStoresBench$", "-count=1", "-timeout", "30m",
		"-args", "-stores-out="+table, "-stores-count="+strconv.Itoa(*count), "-stores-queries="+strconv.Itoa(*queries))
	cmd.Env = append(os.Environ(), EnvBenchStores+"=1")
	out, runErr := cmd.CombinedOutput()
	if data, err := os.ReadFile(table); err == nil {
		_, _ = w.Write(data)
	}
	if runErr != nil {
		return fmt.Errorf("go test ./local/bench -run TestStoresBench: %v\n%s", runErr, out)
	}
	return nil
}
