package extpos

import (
	"context"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
)

// external is one external item as the sync sees it.
type external struct {
	Item
	isbn     string
	count    Count
	hasCount bool
	book     *books.Book
}

// changed is when the external item last changed: its variation or its
// count, whichever is later (two-way's conflict rule).
func (e *external) changed() time.Time {
	if e.hasCount && e.count.CalculatedAt.After(e.UpdatedAt) {
		return e.count.CalculatedAt
	}
	return e.UpdatedAt
}

// Sync runs one sync of storeID in mode, writing stock through the
// StockWriter with cause c (its Ref names the job: the external writes'
// idempotency keys derive from it, so a retried job changes nothing
// twice on either side).
//
//   - Import: each external item whose UPC (or SKU) is an ISBN of a
//     catalog book sets the store's item for that book: its quantity to
//     the IN_STOCK count at the connected location, its price to the
//     variation's, its externalItemId to the variation's id; a new item's
//     condition is new, an existing one's is kept.
//   - Export: each store item is matched to an external variation by its
//     externalItemId, else by ISBN; unmatched ones are created in the
//     catalog (UPC and SKU = ISBN-13) and linked; prices and counts that
//     differ are set on the external side.
//   - TwoWay: items on one side only go to the other; for an item on both,
//     the side changed last wins (the external variation's or count's
//     time against the store item's updatedAt) and is copied to the
//     other. Copying makes the two equal, so the next sync changes
//     nothing.
//
// An item that cannot be applied is an error of the result, never the
// end of the sync; an error returned means the sync could not run
// (ErrNotConnected, ErrUnauthorized, the external system failing).
func (s *Service) Sync(ctx context.Context, storeID string, mode Mode, c inventory.Cause) (Result, error) {
	var res Result
	sess, conn, err := s.session(ctx, storeID)
	if err != nil {
		return res, err
	}
	loc := conn.LocationID
	if loc == "" {
		l, err := sess.MainLocation(ctx)
		if err != nil {
			return res, err
		}
		loc = l.ID
	}

	// The external side, with counts and books.
	var items []Item
	if err := sess.Items(ctx, func(p []Item) error { items = append(items, p...); return nil }); err != nil {
		return res, err
	}
	varIDs := make([]string, len(items))
	for i, it := range items {
		varIDs[i] = it.VariationID
	}
	counts, err := sess.Counts(ctx, loc, varIDs)
	if err != nil {
		return res, err
	}
	byISBN := map[string]*external{}
	byVar := map[string]*external{}
	var exts []*external
	for _, it := range items {
		e := &external{Item: it}
		e.count, e.hasCount = counts[it.VariationID]
		byVar[it.VariationID] = e
		isbn, _, err := books.NormalizeISBN(it.Code)
		if err != nil {
			if mode != Export {
				res.fail(ItemError{ExternalItemID: it.VariationID, ISBN: it.Code, Reason: "the item's UPC or SKU is not an ISBN"})
			}
			continue
		}
		if byISBN[isbn] != nil {
			if mode != Export {
				res.fail(ItemError{ExternalItemID: it.VariationID, ISBN: isbn, Reason: "another external item has the same ISBN"})
			}
			continue
		}
		e.isbn = isbn
		byISBN[isbn] = e
		exts = append(exts, e)
	}
	found, err := s.d.Books.FindBooksByISBN(ctx, sortedKeys(byISBN))
	if err != nil {
		return res, err
	}
	for _, e := range exts {
		e.book = found[e.isbn]
	}

	// The store's side, with its books' ISBNs and titles.
	var locals []*inventory.Item
	if err := s.d.Stock.All(ctx, storeID, func(p []*inventory.Item) error { locals = append(locals, p...); return nil }); err != nil {
		return res, err
	}
	bookIDs := make([]string, len(locals))
	for i, it := range locals {
		bookIDs[i] = it.BookID
	}
	localBooks := map[string]*books.Book{}
	if len(bookIDs) > 0 {
		bs, err := s.d.Books.GetBooks(ctx, bookIDs)
		if err != nil {
			return res, err
		}
		for _, b := range bs {
			localBooks[b.ID] = b
		}
	}

	// Pair them: a store item with the external item its externalItemId
	// names, else the one with its book's ISBN.
	pairOf := map[*inventory.Item]*external{}
	paired := map[*external]*inventory.Item{}
	for _, li := range locals {
		e := byVar[li.ExternalItemID]
		if e == nil || paired[e] != nil || e.isbn == "" {
			e = nil
			if b := localBooks[li.BookID]; b != nil {
				e = byISBN[b.ISBN13]
			}
		}
		if e != nil && paired[e] == nil {
			pairOf[li], paired[e] = e, li
		}
	}

	x := &exporter{}
	for _, e := range exts {
		li := paired[e]
		switch {
		case mode == Export:
			continue // the store's items drive an export
		case e.book == nil:
			res.fail(ItemError{ExternalItemID: e.VariationID, ISBN: e.isbn, Reason: "the catalog has no book with this ISBN"})
		case li == nil || mode == Import || e.changed().After(li.UpdatedAt):
			s.importOne(ctx, storeID, e, li, c, &res)
		}
	}
	for _, li := range locals {
		e := pairOf[li]
		if mode == Import || (e != nil && mode == TwoWay && e.book != nil && e.changed().After(li.UpdatedAt)) {
			continue // imported above, or not exported
		}
		b := localBooks[li.BookID]
		if b == nil {
			res.fail(ItemError{InventoryID: li.ID, Reason: "the item's book is not in the catalog"})
			continue
		}
		x.add(li, b, e, s.d.Currency)
	}
	if err := s.export(ctx, sess, storeID, loc, x, c, &res); err != nil {
		return res, err
	}
	return res, nil
}

// importOne sets the store's item from external item e (li: the store's
// item it is paired with, nil when none).
func (s *Service) importOne(ctx context.Context, storeID string, e *external, li *inventory.Item, c inventory.Cause, res *Result) {
	st := inventory.Stock{BookID: e.book.ID, Quantity: e.count.Quantity, PriceCents: e.PriceCents, Condition: inventory.New, ExternalItemID: e.VariationID}
	if li != nil {
		st.Condition = li.Condition
		if e.PriceCents == 0 {
			st.PriceCents = li.PriceCents // no fixed price outside: keep ours
		}
	}
	r, err := s.d.Stock.Set(ctx, storeID, st, c)
	if err != nil {
		res.fail(ItemError{ExternalItemID: e.VariationID, ISBN: e.isbn, Reason: err.Error()})
		return
	}
	if e.count.Inexact != "" {
		// Applied, rounded down, and said: a store counts whole copies,
		// and refusing the item would leave its old count standing.
		res.fail(ItemError{ExternalItemID: e.VariationID, ISBN: e.isbn,
			Reason: fmt.Sprintf("the point-of-sale count %q is not a whole number of copies: set to %d", e.count.Inexact, e.count.Quantity)})
	}
	res.Synced++
	switch {
	case r.Created:
		res.Created++
	case r.Changed:
		res.Updated++
	}
}

// exporter collects what an export writes outside: catalog upserts and
// counts.
type exporter struct {
	upserts []NewItem
	counts  map[string]int // variation id → quantity
	newOf   map[string]*inventory.Item
	links   []*inventory.Item // paired but not yet linked by externalItemId
	linkTo  map[*inventory.Item]string
	updated int
	synced  int // paired items compared
}

func (x *exporter) add(li *inventory.Item, b *books.Book, e *external, currency string) {
	if x.counts == nil {
		x.counts, x.newOf, x.linkTo = map[string]int{}, map[string]*inventory.Item{}, map[*inventory.Item]string{}
	}
	if e == nil {
		x.upserts = append(x.upserts, NewItem{Key: li.ID, Name: b.Title, ISBN: b.ISBN13, PriceCents: li.PriceCents, Currency: currency})
		x.newOf[li.ID] = li
		return
	}
	x.synced++
	changed := false
	if e.PriceCents != li.PriceCents {
		x.upserts = append(x.upserts, NewItem{Key: li.ID, Name: b.Title, ISBN: b.ISBN13, PriceCents: li.PriceCents, Currency: currency,
			ItemID: e.ItemID, VariationID: e.VariationID, VariationName: e.VariationName, VariationVersion: e.VariationVersion})
		changed = true
	}
	if !e.hasCount || e.count.Quantity != li.Quantity {
		x.counts[e.VariationID] = li.Quantity
		changed = true
	}
	if changed {
		x.updated++
	}
	if li.ExternalItemID != e.VariationID {
		x.links = append(x.links, li)
		x.linkTo[li] = e.VariationID
	}
}

// export writes the collected changes outside, then links the store's
// items to their variations (externalItemId) without changing their
// quantities.
func (s *Service) export(ctx context.Context, sess *Session, storeID, loc string, x *exporter, c inventory.Cause, res *Result) error {
	if len(x.upserts) > 0 {
		ids, err := sess.UpsertItems(ctx, c.Ref+"-upsert", x.upserts)
		if err != nil {
			return err
		}
		for key, li := range x.newOf {
			v := ids[key]
			if v == "" {
				res.fail(ItemError{InventoryID: li.ID, Reason: "the point-of-sale system did not create the item"})
				continue
			}
			x.counts[v] = li.Quantity
			x.links = append(x.links, li)
			x.linkTo[li] = v
			res.Created++
			res.Synced++
		}
	}
	if len(x.counts) > 0 {
		if err := sess.SetCounts(ctx, c.Ref+"-counts", loc, x.counts, s.d.Now()); err != nil {
			return err
		}
	}
	res.Updated += x.updated
	res.Synced += x.synced
	for _, li := range x.links {
		st := inventory.Stock{BookID: li.BookID, Quantity: li.Quantity, PriceCents: li.PriceCents, Condition: li.Condition, ExternalItemID: x.linkTo[li]}
		if _, err := s.d.Stock.Set(ctx, storeID, st, c); err != nil {
			res.fail(ItemError{InventoryID: li.ID, ExternalItemID: x.linkTo[li], Reason: fmt.Sprintf("link the item: %v", err)})
		}
	}
	return nil
}
