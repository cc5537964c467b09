package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bookplatform/backend/local/catalog"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/inventory"
)

// The demo stock: the first store carries the demo catalog's books
// [0, 60), the second [40, 100), so each has 60 books and 20 are carried
// by both; every seventh is used, and every one is in stock.
const (
	demoStockFirst   = 0
	demoStockSecond  = 40
	demoStockPerShop = 60
)

// demoStockOf is the stock of the i-th book of the demo catalog in a
// demo store: a quantity of 1 to 5, a price from 8.99 to 26.99, new or
// (every seventh book) used, on a shelf by its position.
func demoStockOf(i int, bookID string) inventory.Stock {
	cond := inventory.New
	if i%7 == 3 {
		cond = []inventory.Condition{inventory.UsedLikeNew, inventory.UsedVeryGood, inventory.UsedGood, inventory.UsedAcceptable}[i%4]
	}
	loc := fmt.Sprintf("Aisle %d", 1+i%6)
	cost := 450 + (i%10)*75
	return inventory.Stock{
		BookID: bookID, Quantity: 1 + i%5, PriceCents: 899 + (i%10)*200, CostCents: &cost, Condition: cond, Location: &loc,
	}
}

// seedInventory stocks the demo stores with books of the demo catalog
// (once it is loaded), through the stock's StockWriter as an import
// does, so each item has its history entry and the store's counts are
// right. Only the items a store lacks are written: a start never
// changes stock its owner changed.
func seedInventory(ctx context.Context, a *app.App, root string) error {
	f, err := os.Open(filepath.Join(root, catalog.DemoFile))
	if err != nil {
		return fmt.Errorf("demo stock: %w", err)
	}
	defer f.Close()
	recs, _, err := books.ParseJSONLines(f)
	if err != nil {
		return fmt.Errorf("demo stock: %w", err)
	}
	var isbns []string
	for _, r := range recs {
		if len(isbns) == demoStockSecond+demoStockPerShop {
			break
		}
		if isbn13, _, err := books.NormalizeISBN(r.ISBN); err == nil {
			isbns = append(isbns, isbn13)
		}
	}
	found, err := dynamo.NewBooks(a.Table).FindBooksByISBN(ctx, isbns)
	if err != nil {
		return fmt.Errorf("demo stock: %w", err)
	}
	stock := dynamo.NewInventory(a.Table)
	for si, d := range demoStores[:2] {
		owner, err := dynamo.NewUsers(a.Table).GetUserByEmail(ctx, d.OwnerEmail)
		if err != nil {
			return fmt.Errorf("demo stock of %s: %w", d.OwnerEmail, err)
		}
		if owner.StoreID == "" {
			continue
		}
		from := []int{demoStockFirst, demoStockSecond}[si]
		var ids []string
		for _, isbn := range isbns[from:min(from+demoStockPerShop, len(isbns))] {
			if b := found[isbn]; b != nil {
				ids = append(ids, b.ID)
			}
		}
		have, err := stock.ByBooks(ctx, owner.StoreID, ids)
		if err != nil {
			return fmt.Errorf("demo stock of %s: %w", d.OwnerEmail, err)
		}
		for i, id := range ids {
			if have[id] != nil {
				continue
			}
			_, err := stock.Set(ctx, owner.StoreID, demoStockOf(from+i, id), inventory.Cause{Kind: inventory.CauseImport, Reason: "demo stock"})
			if err != nil {
				return fmt.Errorf("demo stock of %s: %w", d.OwnerEmail, err)
			}
		}
	}
	return nil
}
