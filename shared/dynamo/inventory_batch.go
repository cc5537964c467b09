package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/stores"
	"golang.org/x/sync/errgroup"
)

var _ inventory.BatchWriter = (*Inventory)(nil)

// maxTxItems is DynamoDB's limit of items in one TransactWriteItems.
const maxTxItems = 100

// newItemWrite is one new item as SetNew writes it: the item, its
// history's first entry, its event and its postings, all in the
// transaction that creates it.
type newItemWrite struct {
	i   int // the stock's index in SetNew's sts
	it  inventory.Item
	row inventoryItem
	ch  invChangeItem
	ev  events.Event
}

// size is the transaction items w takes: the item, the check of its
// book, its history entry, its event, its inventory ref and its
// postings.
func (w *newItemWrite) size() int { return 5 + len(w.row.Words) }

// SetNew sets stocks of books storeID had no item for
// (inventory.BatchWriter): their books read in one consistent
// BatchGetItem (100 keys a call), then the new items packed into
// transactions of at most maxTxItems items, each with its items'
// history entries, events and postings, the checks that their books
// still exist, and one update of the store's counts (ADD inventoryCount
// n, inStockCount m) conditional on the store being live. The transactions run one after another: side by side they would
// only meet on the store's counts. A transaction refused (an item
// created since the read, a book deleted since, a store being deleted)
// or losing to others on the counts a few times is not retried as a
// whole: its stocks go through Set one by one, which says which stock is
// refused and why, or turns a creation into an update.
func (s *Inventory) SetNew(ctx context.Context, storeID string, sts []inventory.Stock, c inventory.Cause) ([]inventory.SetResult, []error) {
	results := make([]inventory.SetResult, len(sts))
	errs := make([]error, len(sts))
	var (
		later  []int // stocks for Set: a refused transaction's
		again  []int // stocks for Set after those: a book named twice
		bookID []string
		first  = map[string]bool{}
		valid  []int
	)
	for i, st := range sts {
		switch errs[i] = st.Validate(); {
		case errs[i] != nil:
		case first[st.BookID]:
			again = append(again, i)
		default:
			first[st.BookID] = true
			bookID = append(bookID, st.BookID)
			valid = append(valid, i)
		}
	}
	// Consistent: an import adds the books its rows lack just before.
	found, err := (&Books{s.t}).batchGetBooks(ctx, bookID, true)
	if err != nil {
		for _, i := range valid {
			errs[i] = err
		}
		return results, errs
	}
	// Each new item's writes, its times moved past any history its id
	// has (a deleted item's: pastHistory, as create does), read side by
	// side.
	built := make([]*newItemWrite, len(valid))
	now := s.t.now()
	var g errgroup.Group
	g.SetLimit(16)
	for k, i := range valid {
		st := sts[i]
		b := found[st.BookID]
		if b == nil {
			errs[i] = fmt.Errorf("get book %s: %w", st.BookID, books.ErrNotFound)
			continue
		}
		g.Go(func() error {
			built[k], errs[i] = s.newItemWrite(ctx, i, storeID, st, b, now, c)
			return nil
		})
	}
	_ = g.Wait()
	var writes []*newItemWrite
	for _, w := range built {
		if w != nil {
			writes = append(writes, w)
		}
	}
	for len(writes) > 0 {
		n, size := 0, 1 // the store's counts
		for n < len(writes) && (n == 0 || size+writes[n].size() <= maxTxItems) {
			size += writes[n].size()
			n++
		}
		pack := writes[:n]
		writes = writes[n:]
		err := s.createPack(ctx, storeID, pack)
		switch {
		case err == nil:
			for _, w := range pack {
				results[w.i] = inventory.SetResult{Item: &w.it, Created: true, Changed: true}
			}
		case ctx.Err() != nil:
			for _, w := range pack {
				errs[w.i] = err
			}
		default:
			for _, w := range pack {
				later = append(later, w.i)
			}
		}
	}
	for _, i := range append(later, again...) {
		results[i], errs[i] = s.Set(ctx, storeID, sts[i], c)
	}
	return results, errs
}

// newItemWrite makes the writes of a new item of book b set to st, its
// times past any history its id has (pastHistory).
func (s *Inventory) newItemWrite(ctx context.Context, i int, storeID string, st inventory.Stock, b *books.Book, now time.Time, c inventory.Cause) (*newItemWrite, error) {
	id := inventory.ItemID(storeID, st.BookID)
	it := st.Apply(inventory.Item{ID: id, StoreID: storeID, BookID: st.BookID, CreatedAt: now, UpdatedAt: now})
	if err := s.pastHistory(ctx, &it); err != nil {
		return nil, err
	}
	ch := inventory.Change{ItemID: id, StoreID: storeID, Cause: c, Delta: it.Quantity, After: it.Quantity, At: it.UpdatedAt}
	ev, err := inventory.Updated(&it, ch, false)
	if err != nil {
		return nil, err
	}
	return &newItemWrite{
		i: i, it: it, row: toInventoryItem(&it, inventory.IndexOf(b), 1), ch: toChangeItem(ch, ev.ID),
		ev: ev,
	}, nil
}

// packAttempts bounds the runs of one pack's transaction that lose to
// other transactions on the store's counts before its stocks go through
// Set one by one.
const packAttempts = 5

// createPack writes pack's new items in one transaction (SetNew).
// Errors: a refusal (inventory.ErrExists, books.ErrNotFound,
// stores.ErrNotFound), apperr.ErrContention, storage failures.
func (s *Inventory) createPack(ctx context.Context, storeID string, pack []*newItemWrite) error {
	inStock := 0
	for _, w := range pack {
		if w.it.InStock() {
			inStock++
		}
	}
	for attempt := 1; ; attempt++ {
		count := s.t.update(StoreKey(storeID)).Add("inventoryCount", len(pack))
		if inStock > 0 {
			count = count.Add("inStockCount", inStock)
		}
		// As create: the store's refusal first, then each item's book's,
		// then the item's own.
		x := s.t.tx().update(count.If(storeLive), stores.ErrNotFound)
		for _, w := range pack {
			x.check(s.t.check(BookKey(w.it.BookID)).If("attribute_exists(PK)"), books.ErrNotFound)
		}
		for _, w := range pack {
			x.put(s.t.put(w.row).If("attribute_not_exists(PK)"), inventory.ErrExists).put(s.t.put(w.ch), nil).
				put(s.t.put(newInventoryRef(&w.it)), nil).emit(w.ev)
			for _, p := range w.row.postings() {
				x.put(s.t.put(p), nil)
			}
		}
		err := x.run(ctx)
		if err == nil || !retryable(err) || attempt == packAttempts {
			if err != nil {
				return fmt.Errorf("create %d inventory items of store %s: %w", len(pack), storeID, err)
			}
			return nil
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}
