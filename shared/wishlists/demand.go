package wishlists

import (
	"context"
	"fmt"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"golang.org/x/sync/errgroup"
)

// Wishlist demand (docs/decisions.md, "Wishlist demand"): for each store,
// how many readers wish for each book. A reader counts for their home
// store (one at most, so an addition counts at one store), once per book
// however many of their wishlists hold it; the counts change in the
// transactions that add and remove wishlist entries, and move with the
// reader when their home store changes. The store sees counts only,
// never who wished.

// Demand is how many readers counted at a store wish for a book.
type Demand struct {
	StoreID, BookID string
	Count           int
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
	// TopDemand reads a page of the demand of the store with slug (a
	// slug never changes), most readers first. Errors:
	// page.ErrInvalidCursor.
	TopDemand(ctx context.Context, slug string, c page.Cursor) (page.Page[Demand], error)
}

// Stock reads a store's items for books (inventory.StockWriter's
// ByBooks).
type Stock interface {
	ByBooks(ctx context.Context, storeID string, bookIDs []string) (map[string]*inventory.Item, error)
}

// Demand returns a page of the most wished books of the store with slug,
// most readers first, each with its book and the store's stock of it.
// The counters are read by slug, so the read can start beside the check
// that the caller owns the store; storeID waits for that check and gives
// the store's id ("" when refused: nothing more is read). Then the books
// and the items are read side by side. The order moves as readers wish: a
// book whose count changes between two pages can be on both or on
// neither. Errors: page.ErrInvalidCursor.
func (s *Service) Demand(ctx context.Context, slug string, storeID func() string, c page.Cursor) (page.Page[DemandView], error) {
	p, err := s.d.Demand.TopDemand(ctx, stores.NormalizeSlug(slug), c)
	if err != nil {
		return page.Page[DemandView]{}, fmt.Errorf("demand of store %s: %w", slug, err)
	}
	id := storeID()
	out := page.Page[DemandView]{Items: make([]DemandView, 0, len(p.Items)), Next: p.Next}
	var bookIDs []string
	for _, d := range p.Items {
		// A store that once had the slug left no counters (its deletion
		// took them); this guards the index's lag all the same.
		if id != "" && d.StoreID == id {
			out.Items = append(out.Items, DemandView{Demand: d})
			bookIDs = append(bookIDs, d.BookID)
		}
	}
	if len(bookIDs) == 0 {
		return out, nil
	}
	var (
		bs    map[string]*books.Book
		items map[string]*inventory.Item
		g     errgroup.Group
	)
	g.Go(func() (err error) { _, bs, err = s.d.Briefs.GetUsersAndBooks(ctx, nil, bookIDs); return err })
	g.Go(func() (err error) { items, err = s.d.Stock.ByBooks(ctx, id, bookIDs); return err })
	if err := g.Wait(); err != nil {
		return page.Page[DemandView]{}, fmt.Errorf("demand of store %s: %w", slug, err)
	}
	for i := range out.Items {
		out.Items[i].Book, out.Items[i].Item = bs[out.Items[i].BookID], items[out.Items[i].BookID]
	}
	return out, nil
}
