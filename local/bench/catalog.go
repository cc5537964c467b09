package main

import (
	"flag"
	"io"
	"strconv"
)

// EnvBenchSearch turns TestCatalogBench on: it imports thousands of books
// and takes minutes, far too long for `make test`, which only checks that
// it compiles and skips it. runCatalog (and so `make bench`) sets it.
const EnvBenchSearch = "BENCH_SEARCH"

// runCatalog runs TestCatalogBench (catalog_test.go) and copies its tables
// into the report: for each catalog size, the import rate, and search
// latency, DynamoDB calls and read units, with a summary table (issue 23's
// layout) and the cost per million searches. Like the call counts it is a
// test because it builds on local/testenv; BENCH_SEARCH keeps it out of
// `make test`.
func runCatalog(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("catalog", flag.ExitOnError)
	sizes := fs.String("sizes", "10000", "synthetic catalog sizes, each imported into a fresh table and searched (issue 23 measures 10000,100000,1000000)")
	rounds := fs.Int("rounds", 40, "rounds of the query mix through the book service")
	httpRounds := fs.Int("http-rounds", 10, "rounds of the query mix through HTTP")
	_ = fs.Parse(args)

	section(w, "5. Catalog: import rate, and search latency, DynamoDB calls and read units, by catalog size, DynamoDB Local (in memory)",
		EnvBenchSearch+"=1 go test ./local/bench -run TestCatalogBench -count=1 -v -timeout 90m")
	progress("catalog: go test ./local/bench -run TestCatalogBench (imports %s books, then searches)", *sizes)
	return runTestFigure(w, testFigure{run: "^TestCatalogBench$", env: EnvBenchSearch, timeout: "90m", outFlag: "catalog-out", args: []string{
		"-catalog-sizes=" + *sizes, "-search-rounds=" + strconv.Itoa(*rounds), "-search-http-rounds=" + strconv.Itoa(*httpRounds),
	}})
}
