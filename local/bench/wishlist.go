package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
)

// EnvBenchWishlist turns TestWishlistViewLatency on: it fills a wishlist
// with 200 books and sends a few hundred requests, which `make test` has
// no need to repeat. runWishlist (and so `make bench`) sets it.
const EnvBenchWishlist = "BENCH_WISHLIST"

// runWishlist runs TestWishlistViewLatency (wishlist_test.go) and copies
// its table into the report: the latency of GET /v1/wishlists/{id} with
// 200 books, through the real router against DynamoDB Local.
func runWishlist(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("wishlist", flag.ExitOnError)
	items := fs.Int("items", 200, "books on the measured wishlist")
	rounds := fs.Int("rounds", 300, "measured requests")
	_ = fs.Parse(args)

	section(w, fmt.Sprintf("7. GET /v1/wishlists/{id} with %d books: latency through the real router, DynamoDB Local (in memory), rate limits on", *items),
		EnvBenchWishlist+"=1 go test ./local/bench -run TestWishlistViewLatency -count=1 -v")
	progress("wishlist: go test ./local/bench -run TestWishlistViewLatency (%d books, %d requests)", *items, *rounds)
	return runTestFigure(w, testFigure{run: "^TestWishlistViewLatency$", env: EnvBenchWishlist, outFlag: "wishlist-out",
		args: []string{"-wishlist-items=" + strconv.Itoa(*items), "-wishlist-rounds=" + strconv.Itoa(*rounds)}})
}
