package main

import (
	"flag"
	"io"
	"strconv"
)

// EnvBenchSearch turns TestCatalogBench on: it imports 18,000 books and
// takes minutes, far too long for `make test`, which only checks that it
// compiles and skips it. runCatalog (and so `make bench`) sets it.
const EnvBenchSearch = "BENCH_SEARCH"

// runCatalog runs TestCatalogBench (catalog_test.go) and copies its tables
// into the report: import time by catalog size, and search latency and
// DynamoDB calls with 10,000 books loaded. Like the call counts it is a
// test because it builds on local/testenv; BENCH_SEARCH keeps it out of
// `make test`.
func runCatalog(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("catalog", flag.ExitOnError)
	sizes := fs.String("sizes", "1000,2000,5000,10000", "synthetic catalog sizes, each imported into a fresh table; search runs on the largest")
	rounds := fs.Int("rounds", 40, "rounds of the query mix through the book service")
	httpRounds := fs.Int("http-rounds", 10, "rounds of the query mix through HTTP")
	_ = fs.Parse(args)

	section(w, "5. Catalog: import time by size, and search latency and DynamoDB calls with 10,000 books, DynamoDB Local (in memory)",
		EnvBenchSearch+"=1 go test ./local/bench -run TestCatalogBench -count=1 -v -timeout 30m")
	progress("catalog: go test ./local/bench -run TestCatalogBench (imports %s books, then searches)", *sizes)
	return runTestFigure(w, testFigure{run: "^TestCatalogBench$", env: EnvBenchSearch, timeout: "30m", outFlag: "catalog-out", args: []string{
		"-catalog-sizes=" + *sizes, "-search-rounds=" + strconv.Itoa(*rounds), "-search-http-rounds=" + strconv.Itoa(*httpRounds),
	}})
}
