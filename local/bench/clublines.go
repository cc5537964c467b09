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
	dir, err := os.MkdirTemp("", "bench-clublines")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	table := filepath.Join(dir, "clublines.txt")
	progress("clublines: go test ./local/bench -run TestClubLinesBench (%d requests per case)", *rounds)
	cmd := exec.Command("go", "test", "./local/bench", "-run", "^TestClubLinesBench$", "-count=1", "-timeout", "20m",
		"-args", "-clublines-out="+table, "-clublines-rounds="+strconv.Itoa(*rounds))
	cmd.Env = append(os.Environ(), EnvBenchClubLines+"=1")
	out, runErr := cmd.CombinedOutput()
	if data, err := os.ReadFile(table); err == nil {
		_, _ = w.Write(data)
	}
	if runErr != nil {
		return fmt.Errorf("go test ./local/bench -run TestClubLinesBench: %v\n%s", runErr, out)
	}
	return nil
}
