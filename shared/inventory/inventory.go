// Package inventory is the stock domain: each store's items (one per
// store and book), their quantities, prices and conditions, the history
// of every quantity change, and the writes that bulk CSV import and the
// external point-of-sale sync make through one seam (StockWriter). It
// holds the types and the rules; it imports no AWS and no HTTP package.
// Storage is its Store (shared/dynamo).
//
// Every quantity change, whoever makes it (a person's create or adjust,
// an import, a sync, later an order, a cancellation or a sale), writes in
// the same transaction an entry of the item's history and an
// inventory.updated event through the outbox, and keeps the store's
// inventoryCount exact.
package inventory

import (
	"context"
	"time"
)

// Condition is an item's condition, as the spec names them.
type Condition string

// The spec's conditions.
const (
	New            Condition = "new"
	UsedLikeNew    Condition = "used_like_new"
	UsedVeryGood   Condition = "used_very_good"
	UsedGood       Condition = "used_good"
	UsedAcceptable Condition = "used_acceptable"
)

// Conditions lists every condition, best first.
var Conditions = []Condition{New, UsedLikeNew, UsedVeryGood, UsedGood, UsedAcceptable}

// Valid reports whether c is one of Conditions.
func (c Condition) Valid() bool {
	for _, x := range Conditions {
		if c == x {
			return true
		}
	}
	return false
}

// Used reports whether c is a used condition.
func (c Condition) Used() bool { return c.Valid() && c != New }

// Item is a store's stock of one book.
type Item struct {
	ID      string // opaque
	StoreID string
	BookID  string
	// Quantity never goes below zero.
	Quantity   int
	PriceCents int
	CostCents  *int // nil when not given
	Condition  Condition
	Location   string
	Notes      string
	// ExternalItemID is the item's id in the external point-of-sale
	// system, "" until a sync links it.
	ExternalItemID string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// InStock reports whether the item has at least one copy.
func (it *Item) InStock() bool { return it.Quantity > 0 }

// CauseKind is what kind of thing changed a quantity.
type CauseKind string

// The causes of quantity changes.
const (
	CauseCreate CauseKind = "create" // POST /inventory
	CauseAdjust CauseKind = "adjust" // PUT /inventory/{id}/adjust
	CauseImport CauseKind = "import" // a CSV bulk import
	CauseSync   CauseKind = "extpos" // an external point-of-sale sync
	CauseOrder  CauseKind = "order"  // an online order (later)
	CauseCancel CauseKind = "cancel" // an order's cancellation (later)
	CauseSale   CauseKind = "pos"    // a point-of-sale sale (later)
)

// Cause says who or what changed a quantity, and why: it is written into
// the item's history entry.
type Cause struct {
	Kind CauseKind
	// UserID is the person who made the change (the staff member who
	// adjusted, the owner whose import ran), "" when none.
	UserID string
	// Ref is what the change belongs to: an import job's id, a sync's
	// id, an order's or a sale's id; "" when none.
	Ref string
	// Reason is the free text given with an adjustment, or a fixed text
	// for the other kinds.
	Reason string
}

// Change is one entry of an item's history.
type Change struct {
	ItemID  string
	StoreID string
	Cause   Cause
	// Delta is After - Before.
	Delta, Before, After int
	At                   time.Time
}

// Stock is the state bulk import and sync set an item to: upsert by store
// and book. Quantity is set, not added, so applying the same Stock again
// changes nothing.
type Stock struct {
	BookID     string
	Quantity   int
	PriceCents int
	CostCents  *int // nil: keep (a new item has none)
	Condition  Condition
	Location   *string // nil: keep
	Notes      *string // nil: keep
	// ExternalItemID, when not "", links the item to the external
	// point-of-sale system.
	ExternalItemID string
}

// SetResult is what StockWriter.Set did.
type SetResult struct {
	Item *Item // as stored afterwards
	// Created: there was no item for the book; Changed: anything stored
	// changed (false when the item already held s exactly).
	Created, Changed bool
}

// StockWriter is the seam bulk import and the external point-of-sale sync
// write stock through (and, later, orders and sales read it).
type StockWriter interface {
	// Set creates or updates storeID's item for s.BookID to s, in one
	// transaction: when the quantity changes it writes the history entry
	// (cause c) and an inventory.updated event beside the item, and a new
	// item adds one to the store's inventoryCount. Setting the state an
	// item already holds writes nothing (Changed false). Errors: the
	// book not existing (books.ErrNotFound).
	Set(ctx context.Context, storeID string, s Stock, c Cause) (SetResult, error)
	// ByBooks reads storeID's items for the given books, keyed by book
	// id; books the store has no item for are absent.
	ByBooks(ctx context.Context, storeID string, bookIDs []string) (map[string]*Item, error)
	// All calls fn with every item of storeID, in pages (the export of a
	// sync); fn's error stops the walk and is returned.
	All(ctx context.Context, storeID string, fn func([]*Item) error) error
}

// BatchWriter is a StockWriter that also creates many items of one store
// at once (shared/dynamo's Inventory). Set creates an item in its own
// transaction, each one adding one to the store's inventoryCount, so a
// bulk import's creations all meet on that one counter and must go one
// at a time; SetNew puts several new items in one transaction with one
// addition of their number to the store's counts.
type BatchWriter interface {
	StockWriter
	// SetNew sets each of sts (stocks of books storeID had no item for
	// when it was read) as Set does: each new item's history entry and
	// inventory.updated event are written in the transaction that
	// creates it, and the store's counts stay exact. A stock whose item
	// exists by then, or whose transaction is refused, is set by Set.
	// results[i] and errs[i] are sts[i]'s (errs[i] nil when it was set):
	// Set's errors, per stock.
	SetNew(ctx context.Context, storeID string, sts []Stock, c Cause) (results []SetResult, errs []error)
}
