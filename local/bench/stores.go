package main

import (
	"flag"
	"io"
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

	section(w, "8. Stores: GET /v1/stores by position and lookup-by-domain latency over generated stores, DynamoDB Local (in memory)",
		EnvBenchStores+"=1 go test ./local/bench -run TestStoresBench -count=1 -v -timeout 30m")
	progress("stores: go test ./local/bench -run TestStoresBench (writes %d stores, then queries)", *count)
	return runTestFigure(w, testFigure{run: "^TestStoresBench$", env: EnvBenchStores, timeout: "30m", outFlag: "stores-out",
		args: []string{"-stores-count=" + strconv.Itoa(*count), "-stores-queries=" + strconv.Itoa(*queries)}})
}
