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

	section(w, fmt.Sprintf("6. GET /v1/wishlists/{id} with %d books: latency through the real router, DynamoDB Local (in memory), rate limits on", *items),
		EnvBenchWishlist+"=1 go test ./local/bench -run TestWishlistViewLatency -count=1 -v")
	dir, err := os.MkdirTemp("", "bench-wishlist")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	table := filepath.Join(dir, "wishlist.txt")
	progress("wishlist: go test ./local/bench -run TestWishlistViewLatency (%d books, %d requests)", *items, *rounds)
	cmd := exec.Command("go", "test", "./local/bench", "-run", "^TestWishlistViewLatency$", "-count=1",
		"-args", "-wishlist-out="+table, "-wishlist-items="+strconv.Itoa(*items), "-wishlist-rounds="+strconv.Itoa(*rounds))
	cmd.Env = append(os.Environ(), EnvBenchWishlist+"=1")
	out, runErr := cmd.CombinedOutput()
	if data, err := os.ReadFile(table); err == nil {
		_, _ = w.Write(data)
	}
	if runErr != nil {
		return fmt.Errorf("go test ./local/bench -run TestWishlistViewLatency: %v\n%s", runErr, out)
	}
	return nil
}
