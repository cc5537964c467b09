package main

import (
	"flag"
	"io"
	"strconv"
)

// EnvBenchClubLines turns TestClubLinesBench on: it posts 200 lines and
// sends a few thousand requests, too long for `make test`, which only
// checks that it compiles and skips it. runClubLines (and so `make
// bench`) sets it.
const EnvBenchClubLines = "BENCH_CLUB_LINES"

// runClubLines runs TestClubLinesBench (clublines_test.go) and copies its
// table into the report: p50/p99 of GET /v1/clubs/{id}/lines with 200
// lines in the club, through the real router in process on DynamoDB
// Local.
func runClubLines(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("clublines", flag.ExitOnError)
	rounds := fs.Int("rounds", 300, "measured requests per case")
	_ = fs.Parse(args)

	section(w, "6. GET /v1/clubs/{id}/lines with 200 lines in the club: latency through the router, in process, DynamoDB Local (in memory)",
		EnvBenchClubLines+"=1 go test ./local/bench -run TestClubLinesBench -count=1 -v")
	progress("clublines: go test ./local/bench -run TestClubLinesBench (%d requests per case)", *rounds)
	return runTestFigure(w, testFigure{run: "^TestClubLinesBench$", env: EnvBenchClubLines, timeout: "20m", outFlag: "clublines-out",
		args: []string{"-clublines-rounds=" + strconv.Itoa(*rounds)}})
}
