package main

import (
	"flag"
	"io"
	"strconv"
)

// EnvBenchOrders makes TestOrdersBench place the number of orders its
// flag gives (300 through runOrders): `make test` places a few only, as
// a check that it works.
const EnvBenchOrders = "BENCH_ORDERS"

// runOrders runs TestOrdersBench (orders_test.go) and copies its table
// into the report: POST /v1/orders with 3 items from 2 stores on the
// local run's stack (DynamoDB Local and the Stripe stand-in), with its
// calls and depth.
func runOrders(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("orders", flag.ExitOnError)
	n := fs.Int("orders", 300, "orders placed, one at a time")
	_ = fs.Parse(args)

	section(w, "12. Orders: POST /v1/orders with 3 items from 2 stores, over HTTP, DynamoDB Local (in memory) and the Stripe stand-in",
		EnvBenchOrders+"=1 go test ./local/bench -run TestOrdersBench -count=1 -v -args -orders-n="+strconv.Itoa(*n))
	progress("orders: go test ./local/bench -run TestOrdersBench (two stores, three books, %d orders)", *n)
	return runTestFigure(w, testFigure{run: "^TestOrdersBench$", env: EnvBenchOrders, timeout: "30m", outFlag: "orders-out",
		args: []string{"-orders-n=" + strconv.Itoa(*n)}})
}
