package main

import (
	"flag"
	"io"
	"strconv"
)

// EnvBenchInventory makes TestInventoryBench use the sizes given by its
// flags (20,000 items by default through runInventory): `make test`
// runs it at a tiny size only, as a check that it works.
const EnvBenchInventory = "BENCH_INVENTORY"

// runInventory runs TestInventoryBench (inventory_test.go) and copies its
// table into the report: GET /v1/inventory search and list latency in
// one store holding many items.
func runInventory(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("inventory", flag.ExitOnError)
	items := fs.Int("items", 20000, "items in the one store")
	rounds := fs.Int("rounds", 40, "rounds of the query mix")
	_ = fs.Parse(args)

	section(w, "10. Inventory: GET /v1/inventory search and list latency in one store with many items, over HTTP, DynamoDB Local (in memory)",
		EnvBenchInventory+"=1 go test ./local/bench -run TestInventoryBench -count=1 -v -timeout 60m -args -inventory-items="+strconv.Itoa(*items))
	progress("inventory: go test ./local/bench -run TestInventoryBench (imports %d books, stocks them in one store, then queries)", *items)
	return runTestFigure(w, testFigure{run: "^TestInventoryBench$", env: EnvBenchInventory, timeout: "60m", outFlag: "inventory-out",
		args: []string{"-inventory-items=" + strconv.Itoa(*items), "-inventory-rounds=" + strconv.Itoa(*rounds)}})
}
