package wishlists

import (
	"context"
	"fmt"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
	"golang.org/x/sync/errgroup"
)

// Wishlist demand (docs/decisions.md, "Wishlist demand"): for each store,
// how many readers wish for each book. A reader counts for their home
// store (one at most, so an addition counts at one store), once per book
// however many of their wishlists hold it; the counts change in the
// transactions that add and remove wishlist entries, and move with the
// reader when their home store changes. The store sees counts only,
// never who wished.

// Demand limits: GET /stores/{slug}/wishlist-demand answers the most
// wished books, DefaultDemandLimit unless the request asks for up to
// MaxDemandLimit.
const (
	DefaultDemandLimit = 50
	MaxDemandLimit     = 100
)

// Demand is how many readers counted at a store wish for a book.
type Demand struct {
	BookID string
	Count  int
}

// DemandView is a book of a store's demand: its count, its book (nil
// when the record is missing) and the store's item of it (nil when the
// store has none).
type DemandView struct {
	Demand
	Book *books.Book
	Item *inventory.Item
}

// DemandStorer reads the demand counts (part of the storage beside
// Storer).
type DemandStorer interface {
	// TopDemand reads storeID's most wished books, at most limit, most
	// readers first.
	TopDemand(ctx context.Context, storeID string, limit int) ([]Demand, error)
}

// Stock reads a store's items for books (inventory.StockWriter's
// ByBooks).
type Stock interface {
	ByBooks(ctx context.Context, storeID string, bookIDs []string) (map[string]*inventory.Item, error)
}

// Demand returns storeID's most wished books (at most limit, most
// readers first), each with its book and the store's stock of it: one
// Query of the counters, then the books and the items side by side. The
// caller has checked that the store exists and is the caller's.
func (s *Service) Demand(ctx context.Context, storeID string, limit int) ([]DemandView, error) {
	ds, err := s.d.Demand.TopDemand(ctx, storeID, limit)
	if err != nil {
		return nil, fmt.Errorf("demand of store %s: %w", storeID, err)
	}
	out := make([]DemandView, len(ds))
	if len(ds) == 0 {
		return out, nil
	}
	bookIDs := make([]string, len(ds))
	for i, d := range ds {
		bookIDs[i] = d.BookID
	}
	var (
		bs    map[string]*books.Book
		items map[string]*inventory.Item
		g     errgroup.Group
	)
	g.Go(func() (err error) { _, bs, err = s.d.Briefs.GetUsersAndBooks(ctx, nil, bookIDs); return err })
	g.Go(func() (err error) { items, err = s.d.Stock.ByBooks(ctx, storeID, bookIDs); return err })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("demand of store %s: %w", storeID, err)
	}
	for i, d := range ds {
		out[i] = DemandView{Demand: d, Book: bs[d.BookID], Item: items[d.BookID]}
	}
	return out, nil
}
