package inventory

import (
	"context"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/page"
	"github.com/google/uuid"
)

// Errors of the stock domain. Storage returns them wrapped with context.
var (
	ErrNotFound = apperr.NotFound("Inventory item not found")
	// ErrExists: the store has an item for the book already (one item
	// per store and book; the spec's 409).
	ErrExists = apperr.Conflict("Inventory item already exists for this book")
	// ErrInsufficient: an adjustment would take the quantity below zero.
	ErrInsufficient = apperr.Validation("Insufficient quantity: the adjustment would take the quantity below zero",
		map[string]string{"adjustment": "would take the quantity below zero"})
)

// CauseDelete is an item's removal (DELETE /inventory/{id}): its history
// records the quantity going to zero, and its event says the item is
// gone.
const CauseDelete CauseKind = "delete"

// itemNamespace names the ids ItemID derives (a version 5 UUID space).
var itemNamespace = uuid.MustParse("3d0c5a8e-7b41-5f2a-9c6e-2f1b8d4a6e70")

// ItemID is the id of storeID's item for bookID: derived from the pair
// (a name-based UUID), so the item of a store and book is one key, a
// conditional put of it refuses a second, and import and sync find an
// item by book without an index. Clients treat it as opaque. An item
// deleted and created again gets its id back, and its history goes on.
func ItemID(storeID, bookID string) string {
	return uuid.NewSHA1(itemNamespace, []byte(storeID+"/"+bookID)).String()
}

// Update is a change of an item's fields other than its quantity (PUT
// /inventory/{id}); nil keeps a field. ClearCost removes the cost (the
// request's costCents null; CostCents is then nil).
type Update struct {
	PriceCents *int
	CostCents  *int
	ClearCost  bool
	Condition  *Condition
	Location   *string
	Notes      *string
}

// ListQuery asks for one page of a store's items.
type ListQuery struct {
	Page        page.Offset
	InStockOnly bool
	// Search, when not zero, keeps the items whose book's title,
	// authors or ISBN match it (ParseSearch).
	Search Search
}

// ListResult is one page of a store's items, in title order.
type ListResult struct {
	Items []*Item
	// Total is the number of items the query selects: exact, unless
	// TotalIsLowerBound (a search whose driving word has more than
	// MaxSearchPostings postings in the store counted the matches among
	// the first of them only).
	Total             int
	TotalIsLowerBound bool
}

// Storer is the stock's storage (shared/dynamo's Inventory): the
// StockWriter seam, and what the inventory endpoints need. Every write
// that changes a quantity writes its history entry and its
// inventory.updated event in the same transaction.
type Storer interface {
	StockWriter
	// Create puts a new item of book b (it.ID is ItemID of its store
	// and book) with the store's inventoryCount one up and its history's
	// first entry; b, as the caller read it, gives the item's search
	// words. Errors: ErrExists, books.ErrNotFound, stores.ErrNotFound.
	Create(ctx context.Context, it *Item, b *books.Book, c Cause) error
	// Get reads storeID's item id, strongly consistent. Errors:
	// ErrNotFound.
	Get(ctx context.Context, storeID, id string) (*Item, error)
	// Update changes fields other than the quantity. Errors: ErrNotFound.
	Update(ctx context.Context, storeID, id string, u Update) (*Item, error)
	// Adjust adds delta to the quantity in one conditional write: never
	// below zero. It returns the item as stored afterwards and the
	// change. Errors: ErrNotFound, ErrInsufficient.
	Adjust(ctx context.Context, storeID, id string, delta int, c Cause) (*Item, Change, error)
	// Delete removes the item, its inventoryCount and its search
	// entries; its history stays. Errors: ErrNotFound.
	Delete(ctx context.Context, storeID, id string, c Cause) error
	// List reads one page of a store's items (ListQuery).
	List(ctx context.Context, storeID string, q ListQuery) (ListResult, error)
	// History reads a page of an item's changes, newest first.
	History(ctx context.Context, storeID, id string, c page.Cursor) (page.Page[Change], error)
	// InStock reads the items of bookID with at least one copy, in every
	// store, at most max of them (one Query).
	InStock(ctx context.Context, bookID string, max int) ([]*Item, error)
}

// ChangeTime is a change's time: the clock's, moved just past the item's last
// change when the clock is behind it (another function's clock, a
// change within the same instant), so an item's history in time order
// is the order its changes committed in.
func ChangeTime(clock, last time.Time) time.Time {
	if clock.After(last) {
		return clock
	}
	return last.Add(time.Microsecond)
}
