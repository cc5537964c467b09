package main

import (
	"flag"
	"fmt"
	"io"
)

// Depth targets: an authenticated read may wait for at most two DynamoDB
// round trips one after the other, and GET /v1/users/me for one (the
// caller read and the rate-limit counter run side by side).
const (
	maxAuthenticatedReadDepth = 2
	usersMeDepth              = 1
)

// runCalls runs TestCallCounts (calls_test.go) and copies its table into
// the report. It is a test because local/testenv, which gives it a fresh
// table in DynamoDB Local and an S3 stand-in, is built on testing.TB.
func runCalls(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("calls", flag.ExitOnError)
	_ = fs.Parse(args)

	section(w, "3. DynamoDB calls per request and sequential depth (round trips one after the other), every route, DynamoDB Local",
		"go test ./local/bench -run TestCallCounts -count=1 -v")
	fmt.Fprintf(w, "   targets: an authenticated read at most %d sequential round trips; GET /v1/users/me depth %d\n", maxAuthenticatedReadDepth, usersMeDepth)

	progress("calls: go test ./local/bench -run TestCallCounts")
	return runTestFigure(w, testFigure{run: "^TestCall", outFlag: "calls-out"})
}
