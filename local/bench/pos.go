package main

import (
	"flag"
	"io"
	"strconv"
)

// EnvBenchPOS makes TestPOSBench ring up the sales its flags give (300
// measured, 2,000 in the day through runPOS): `make test` rings up a few
// only, as a check that it works.
const EnvBenchPOS = "BENCH_POS"

// runPOS runs TestPOSBench (pos_test.go) and copies its table into the
// report: POST /api/pos/sales with 3 items, and the summary of a day of
// 2,000 sales in one store, with their calls and depth.
func runPOS(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("pos", flag.ExitOnError)
	n := fs.Int("sales", 300, "sales measured, one at a time (the first of the day's)")
	day := fs.Int("day", 2000, "sales in the day the summary reads")
	rounds := fs.Int("rounds", 200, "summaries measured")
	_ = fs.Parse(args)

	section(w, "13. Point of sale: POST /api/pos/sales with 3 items, and GET /api/pos/reports/summary of a day of "+strconv.Itoa(*day)+" sales, over HTTP, DynamoDB Local (in memory)",
		EnvBenchPOS+"=1 go test ./local/bench -run TestPOSBench -count=1 -v -args -pos-sales="+strconv.Itoa(*n)+" -pos-day="+strconv.Itoa(*day)+" -pos-rounds="+strconv.Itoa(*rounds))
	progress("pos: go test ./local/bench -run TestPOSBench (one store, %d sales in a day, %d measured)", *day, *n)
	return runTestFigure(w, testFigure{run: "^TestPOSBench$", env: EnvBenchPOS, timeout: "30m", outFlag: "pos-out",
		args: []string{"-pos-sales=" + strconv.Itoa(*n), "-pos-day=" + strconv.Itoa(*day), "-pos-rounds=" + strconv.Itoa(*rounds)}})
}
