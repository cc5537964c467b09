package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Inventory stores the stores' stock: one item per store and book
// (InventoryItemKey), each item's history of quantity changes
// (InventoryHistoryKey), and each store's search postings of its items
// (InventoryPostingKey). It is the StockWriter bulk import and the
// point-of-sale sync write through, and the storage of the inventory
// endpoints.
//
// Every write of an item is a transaction conditional on the version it
// read (a put of the whole item, so its sparse index keys follow its
// quantity), retried from a fresh read when another write came between:
// an adjustment is one such write, so it never takes the quantity below
// zero and N concurrent ones give the exact sum, and the history entry
// records the quantity before and after exactly. A change of quantity
// writes, in the same transaction, the history entry and an
// inventory.updated event (tx.emit). The store item counts its items
// (inventoryCount: one more with each item created, one less with each
// deleted) and those in stock (inStockCount, the total of inStockOnly
// lists: it moves only when an item's quantity crosses zero).
type Inventory struct{ t *table }

// NewInventory is the stock's store over the table.
func NewInventory(h Handle) *Inventory { return &Inventory{h.table()} }

var (
	_ inventory.Storer      = (*Inventory)(nil)
	_ inventory.StockWriter = (*Inventory)(nil)
)

// inventoryItem is an item as stored (InventoryItemKey), listed on GSI1
// (inventoryItems) and, while in stock, on GSI2 (inventoryInStock) and
// GSI3 (bookStock). It keeps what its postings were made of (words and
// texts of its book when it was created), so a change that moves them
// finds them without reading the book.
type inventoryItem struct {
	PK             string    `dynamo:"PK"`
	SK             string    `dynamo:"SK"`
	GSI1PK         string    `dynamo:"GSI1PK"`
	GSI1SK         string    `dynamo:"GSI1SK"`
	GSI2PK         string    `dynamo:"GSI2PK,omitempty"`
	GSI2SK         string    `dynamo:"GSI2SK,omitempty"`
	GSI3PK         string    `dynamo:"GSI3PK,omitempty"`
	GSI3SK         string    `dynamo:"GSI3SK,omitempty"`
	Type           string    `dynamo:"type"`
	ID             string    `dynamo:"id"`
	StoreID        string    `dynamo:"storeId"`
	BookID         string    `dynamo:"bookId"`
	Quantity       int       `dynamo:"quantity"`
	PriceCents     int       `dynamo:"priceCents"`
	CostCents      *int      `dynamo:"costCents"`
	Condition      string    `dynamo:"condition"`
	Location       string    `dynamo:"location,omitempty"`
	Notes          string    `dynamo:"notes,omitempty"`
	ExternalItemID string    `dynamo:"externalItemId,omitempty"`
	Words          []string  `dynamo:"words,set"`
	TitleKey       string    `dynamo:"titleKey"`
	AuthorKey      string    `dynamo:"authorKey,omitempty"`
	ISBN13         string    `dynamo:"isbn13"`
	Version        int       `dynamo:"version"`
	CreatedAt      time.Time `dynamo:"createdAt"`
	UpdatedAt      time.Time `dynamo:"updatedAt"`
}

// typeInventoryItem, typeInventoryChange and typeInventoryRef are the
// items' types.
const (
	typeInventoryItem   = "InventoryItem"
	typeInventoryChange = "InventoryChange"
	typeInventoryRef    = "InventoryRef"
)

// invRefItem is where an item lives, by its id alone
// (InventoryRefKey): POST /orders names items by id, and an id
// (inventory.ItemID, name-based) does not hold its store. It is put,
// unconditionally (the id is deterministic), in the transaction of
// every creation of an item, and never deleted: an order of a deleted
// item finds the ref, then no item (404).
type invRefItem struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	Type    string `dynamo:"type"`
	StoreID string `dynamo:"storeId"`
	BookID  string `dynamo:"bookId"`
}

func newInventoryRef(it *inventory.Item) invRefItem {
	k := InventoryRefKey(it.ID)
	return invRefItem{PK: k.PK, SK: k.SK, Type: typeInventoryRef, StoreID: it.StoreID, BookID: it.BookID}
}

func toInventoryItem(it *inventory.Item, ix inventory.Index, version int) inventoryItem {
	k := InventoryItemKey(it.StoreID, it.ID)
	sk := inventoryTitleSK(ix.TitleKey, it.ID)
	row := inventoryItem{
		PK: k.PK, SK: k.SK, GSI1PK: inventoryItems(it.StoreID).pk, GSI1SK: sk, Type: typeInventoryItem,
		ID: it.ID, StoreID: it.StoreID, BookID: it.BookID, Quantity: it.Quantity, PriceCents: it.PriceCents,
		CostCents: it.CostCents, Condition: string(it.Condition), Location: it.Location, Notes: it.Notes,
		ExternalItemID: it.ExternalItemID, Words: ix.Words, TitleKey: ix.TitleKey, AuthorKey: ix.AuthorKey,
		ISBN13: ix.ISBN13, Version: version, CreatedAt: it.CreatedAt.UTC(), UpdatedAt: it.UpdatedAt.UTC(),
	}
	if it.InStock() {
		row.GSI2PK, row.GSI2SK = inventoryInStock(it.StoreID).pk, sk
		row.GSI3PK, row.GSI3SK = bookStock(it.BookID).pk, it.StoreID
	}
	return row
}

func (row inventoryItem) toItem() *inventory.Item {
	return &inventory.Item{
		ID: row.ID, StoreID: row.StoreID, BookID: row.BookID, Quantity: row.Quantity, PriceCents: row.PriceCents,
		CostCents: row.CostCents, Condition: inventory.Condition(row.Condition), Location: row.Location,
		Notes: row.Notes, ExternalItemID: row.ExternalItemID, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
	}
}

func (row inventoryItem) index() inventory.Index {
	return inventory.Index{Words: row.Words, TitleKey: row.TitleKey, AuthorKey: row.AuthorKey, ISBN13: row.ISBN13}
}

// invPostingItem is one word of one item in its store's search index
// (InventoryPostingKey): the texts a search verifies its other words
// against and whether the item is in stock, and nothing else (no type
// attribute either: a search pays for every byte it reads).
type invPostingItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	TitleKey  string `dynamo:"titleKey"`
	AuthorKey string `dynamo:"authorKey,omitempty"`
	ISBN13    string `dynamo:"isbn13"`
	InStock   bool   `dynamo:"inStock"`
}

// postingKeys are the keys of row's postings.
func (row inventoryItem) postingKeys() []Key {
	out := make([]Key, len(row.Words))
	for i, w := range row.Words {
		out[i] = InventoryPostingKey(row.StoreID, w, row.GSI1SK)
	}
	return out
}

func (row inventoryItem) postings() []invPostingItem {
	keys := row.postingKeys()
	out := make([]invPostingItem, len(keys))
	for i, k := range keys {
		out[i] = invPostingItem{PK: k.PK, SK: k.SK, TitleKey: row.TitleKey, AuthorKey: row.AuthorKey, ISBN13: row.ISBN13, InStock: row.Quantity > 0}
	}
	return out
}

// invChangeItem is one entry of an item's history (InventoryHistoryKey);
// its id is the id of the change's event.
type invChangeItem struct {
	PK      string    `dynamo:"PK"`
	SK      string    `dynamo:"SK"`
	Type    string    `dynamo:"type"`
	ID      string    `dynamo:"id"`
	ItemID  string    `dynamo:"itemId"`
	StoreID string    `dynamo:"storeId"`
	Cause   string    `dynamo:"cause"`
	UserID  string    `dynamo:"userId,omitempty"`
	Ref     string    `dynamo:"ref,omitempty"`
	Reason  string    `dynamo:"reason,omitempty"`
	Delta   int       `dynamo:"delta"`
	Before  int       `dynamo:"before"`
	After   int       `dynamo:"after"`
	At      time.Time `dynamo:"at"`
}

func toChangeItem(ch inventory.Change, id string) invChangeItem {
	k := InventoryHistoryKey(ch.StoreID, ch.ItemID, ch.At, id)
	return invChangeItem{
		PK: k.PK, SK: k.SK, Type: typeInventoryChange, ID: id, ItemID: ch.ItemID, StoreID: ch.StoreID,
		Cause: string(ch.Cause.Kind), UserID: ch.Cause.UserID, Ref: ch.Cause.Ref, Reason: ch.Cause.Reason,
		Delta: ch.Delta, Before: ch.Before, After: ch.After, At: ch.At.UTC(),
	}
}

func (c invChangeItem) toChange() inventory.Change {
	return inventory.Change{
		ItemID: c.ItemID, StoreID: c.StoreID,
		Cause: inventory.Cause{Kind: inventory.CauseKind(c.Cause), UserID: c.UserID, Ref: c.Ref, Reason: c.Reason},
		Delta: c.Delta, Before: c.Before, After: c.After, At: c.At,
	}
}

// errItemMoved is an item's write refused because the item is no longer
// at the version read (another write came between, or it is gone): the
// write is tried again from a fresh read.
var errItemMoved = errors.New("inventory item moved on since it was read")

// changeAttempts bounds the reads and writes of one change that keeps
// losing to concurrent writes of the same item (then
// apperr.ErrContention): each loss means another change committed, so
// N concurrent changes of one item all land within N attempts.
const changeAttempts = 50

// backoff waits a little, more after each lost attempt, with jitter so
// that the losers do not collide again in step.
func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(rand.IntN(2*min(attempt, 10)+1)) * time.Millisecond
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// retryable reports whether a lost write is tried again: the item moved,
// or the transaction met another on one of its items.
func retryable(err error) bool {
	return errors.Is(err, errItemMoved) || errors.Is(err, apperr.ErrContention)
}

// read reads storeID's item id, strongly consistent. Errors:
// inventory.ErrNotFound.
func (s *Inventory) read(ctx context.Context, storeID, id string) (inventoryItem, error) {
	var row inventoryItem
	err := s.t.get(InventoryItemKey(storeID, id)).Consistent(true).One(ctx, &row)
	if errors.Is(err, dynamo.ErrNotFound) {
		return row, fmt.Errorf("inventory item %s of store %s: %w", id, storeID, inventory.ErrNotFound)
	}
	if err != nil {
		return row, fmt.Errorf("get inventory item %s of store %s: %w", id, storeID, err)
	}
	return row, nil
}

// Get reads storeID's item id. Errors: inventory.ErrNotFound.
func (s *Inventory) Get(ctx context.Context, storeID, id string) (*inventory.Item, error) {
	row, err := s.read(ctx, storeID, id)
	if err != nil {
		return nil, err
	}
	return row.toItem(), nil
}

// Create puts a new item of book b with its postings (b's words), its
// history's first entry (after any its id's history has: pastHistory)
// and its event, and counts it on the store, in
// one transaction that also checks the book still exists. Errors:
// inventory.ErrExists, books.ErrNotFound, stores.ErrNotFound.
func (s *Inventory) Create(ctx context.Context, it *inventory.Item, b *books.Book, c inventory.Cause) error {
	return s.create(ctx, it, b, c)
}

func (s *Inventory) create(ctx context.Context, it *inventory.Item, b *books.Book, c inventory.Cause) error {
	if err := s.pastHistory(ctx, it); err != nil {
		return err
	}
	row := toInventoryItem(it, inventory.IndexOf(b), 1)
	ch := inventory.Change{ItemID: it.ID, StoreID: it.StoreID, Cause: c, Delta: it.Quantity, After: it.Quantity, At: it.UpdatedAt}
	ev, err := inventory.Updated(it, ch, false)
	if err != nil {
		return err
	}
	count := s.t.update(StoreKey(it.StoreID)).Add("inventoryCount", 1)
	if it.InStock() {
		count = count.Add("inStockCount", 1)
	}
	// The store's refusal first (a deleted store's item is no item),
	// then the book's, then the item's own.
	x := s.t.tx().
		update(count.If(storeLive), stores.ErrNotFound).
		check(s.t.check(BookKey(it.BookID)).If("attribute_exists(PK)"), books.ErrNotFound).
		put(s.t.put(row).If("attribute_not_exists(PK)"), inventory.ErrExists).
		put(s.t.put(toChangeItem(ch, ev.ID)), nil).
		put(s.t.put(newInventoryRef(it)), nil).
		emit(ev)
	for _, p := range row.postings() {
		x.put(s.t.put(p), nil)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("create inventory item %s of store %s: %w", it.ID, it.StoreID, err)
	}
	return nil
}

// pastHistory moves the times of it, an item about to be created, past
// the last entry of the history its id already has (an item deleted and
// created again: ItemID gives its id back), as ChangeTime does for a
// change of an existing item, so its first entry is not listed before
// the deletion's. One consistent Query of the newest entry (an empty
// partition for a first creation).
func (s *Inventory) pastHistory(ctx context.Context, it *inventory.Item) error {
	var last []invChangeItem
	err := s.t.table.Get(AttrPK, inventoryHistoryPK(it.StoreID, it.ID)).Order(dynamo.Descending).
		Consistent(true).Project("at").Limit(1).All(ctx, &last)
	if err != nil {
		return fmt.Errorf("read the history of inventory item %s of store %s: %w", it.ID, it.StoreID, err)
	}
	if len(last) == 1 {
		if at := inventory.ChangeTime(it.UpdatedAt, last[0].At); !at.Equal(it.UpdatedAt) {
			it.CreatedAt, it.UpdatedAt = at, at
		}
	}
	return nil
}

// write replaces prev (as read) with next, conditional on prev's
// version. When the quantity changes (cause says why) it writes in the
// same transaction the history entry and the event and, when the
// quantity crosses zero, moves the store's inStockCount and the
// postings' stock flag. It returns the change (nil without one).
// Errors: errItemMoved, stores.ErrNotFound.
func (s *Inventory) write(ctx context.Context, prev inventoryItem, next *inventory.Item, cause inventory.Cause) (*inventory.Change, error) {
	x := s.t.tx()
	ch, row, err := s.addChange(x, prev, next, cause)
	if err != nil {
		return nil, err
	}
	if step := stockStep(prev, next); step != 0 {
		x.update(s.t.update(StoreKey(next.StoreID)).Add("inStockCount", step).If("attribute_exists(PK)"), stores.ErrNotFound)
		for _, k := range row.postingKeys() {
			x.update(s.t.update(k).Set("inStock", next.Quantity > 0), nil)
		}
	}
	if err := x.run(ctx); err != nil {
		return nil, fmt.Errorf("write inventory item %s of store %s: %w", next.ID, next.StoreID, err)
	}
	return ch, nil
}

// addChange adds to x the put of next over prev, conditional on prev's
// version (errItemMoved), and, when the quantity changes, its history
// entry and its inventory.updated event: the part of an item's change
// that every transaction changing stock shares (write; an order's and
// its cancellation's, orders.go, which move the store's count and the
// postings their own way). It returns the change (nil without one) and
// the row put.
func (s *Inventory) addChange(x *tx, prev inventoryItem, next *inventory.Item, cause inventory.Cause) (*inventory.Change, inventoryItem, error) {
	row := toInventoryItem(next, prev.index(), prev.Version+1)
	x.put(s.t.put(row).If("version = ?", prev.Version), errItemMoved)
	if next.Quantity == prev.Quantity {
		return nil, row, nil
	}
	ch := &inventory.Change{
		ItemID: next.ID, StoreID: next.StoreID, Cause: cause,
		Delta: next.Quantity - prev.Quantity, Before: prev.Quantity, After: next.Quantity, At: next.UpdatedAt,
	}
	ev, err := inventory.Updated(next, *ch, false)
	if err != nil {
		return nil, row, err
	}
	x.put(s.t.put(toChangeItem(*ch, ev.ID)), nil).emit(ev)
	return ch, row, nil
}

// stockStep is how a change from prev to next moves its store's
// inStockCount: +1 when it comes into stock, -1 when it sells out.
func stockStep(prev inventoryItem, next *inventory.Item) int {
	switch wasIn, isIn := prev.Quantity > 0, next.Quantity > 0; {
	case wasIn == isIn:
		return 0
	case isIn:
		return 1
	default:
		return -1
	}
}

// setPostingsStock sets the stock flag of row's postings, one
// UpdateItem each (not in a transaction: an order's flips follow its
// commit; a flip lost to a crash leaves a sold-out item's postings
// saying in stock, which search drops by the item's quantity).
func (s *Inventory) setPostingsStock(ctx context.Context, row inventoryItem, inStock bool) error {
	for _, k := range row.postingKeys() {
		if err := s.t.update(k).Set("inStock", inStock).Run(ctx); err != nil {
			return fmt.Errorf("set the stock flag of a posting of item %s: %w", row.ID, err)
		}
	}
	return nil
}

// change reads storeID's item id, makes the next state of it with edit,
// and writes it (write), trying again from a fresh read when another
// write came between. Errors: inventory.ErrNotFound, edit's,
// apperr.ErrContention.
func (s *Inventory) change(ctx context.Context, storeID, id string, cause inventory.Cause,
	edit func(inventory.Item) (inventory.Item, error)) (*inventory.Item, *inventory.Change, error) {
	for attempt := 1; ; attempt++ {
		row, err := s.read(ctx, storeID, id)
		if err != nil {
			return nil, nil, err
		}
		prev := row.toItem()
		next, err := edit(*prev)
		if err != nil {
			return nil, nil, err
		}
		next.UpdatedAt = inventory.ChangeTime(s.t.now(), prev.UpdatedAt)
		ch, err := s.write(ctx, row, &next, cause)
		if err == nil || !retryable(err) {
			return &next, ch, err
		}
		if attempt == changeAttempts {
			return nil, nil, fmt.Errorf("change inventory item %s: %w", id, apperr.ErrContention)
		}
		if err := backoff(ctx, attempt); err != nil {
			return nil, nil, err
		}
	}
}

// Adjust adds delta to the item's quantity (one conditional write, with
// its history entry and event). Errors: inventory.ErrNotFound,
// inventory.ErrInsufficient, a 400 past inventory.MaxQuantity.
func (s *Inventory) Adjust(ctx context.Context, storeID, id string, delta int, c inventory.Cause) (*inventory.Item, inventory.Change, error) {
	it, ch, err := s.change(ctx, storeID, id, c, func(it inventory.Item) (inventory.Item, error) {
		switch q := it.Quantity + delta; {
		case q < 0:
			return it, inventory.ErrInsufficient
		case q > inventory.MaxQuantity:
			return it, apperr.Validation("The adjustment would take the quantity over its limit",
				map[string]string{"adjustment": "would take the quantity over " + fmt.Sprint(inventory.MaxQuantity)})
		}
		it.Quantity += delta
		return it, nil
	})
	if err != nil {
		return nil, inventory.Change{}, err
	}
	if ch == nil { // delta 0: nothing changed but updatedAt
		return it, inventory.Change{ItemID: it.ID, StoreID: it.StoreID, Cause: c, Before: it.Quantity, After: it.Quantity, At: it.UpdatedAt}, nil
	}
	return it, *ch, nil
}

// Update changes fields other than the quantity (one conditional write,
// no history entry: the history is of quantities). Errors:
// inventory.ErrNotFound.
func (s *Inventory) Update(ctx context.Context, storeID, id string, u inventory.Update) (*inventory.Item, error) {
	it, _, err := s.change(ctx, storeID, id, inventory.Cause{}, func(it inventory.Item) (inventory.Item, error) {
		return u.Apply(it), nil
	})
	return it, err
}

// Delete removes the item and its postings, takes it off the store's
// counts and records the quantity going to zero in its history, with
// its event (deleted), in one transaction conditional on the version
// read. Errors: inventory.ErrNotFound, stores.ErrNotFound.
func (s *Inventory) Delete(ctx context.Context, storeID, id string, c inventory.Cause) error {
	return s.remove(ctx, storeID, id, c, true)
}

// remove is Delete; counted false leaves the store's counts alone (a
// deleting store's go with it, and its items' removals, side by side,
// would otherwise all meet on the store item).
func (s *Inventory) remove(ctx context.Context, storeID, id string, c inventory.Cause, counted bool) error {
	for attempt := 1; ; attempt++ {
		row, err := s.read(ctx, storeID, id)
		if err != nil {
			return err
		}
		it := row.toItem()
		it.UpdatedAt = inventory.ChangeTime(s.t.now(), it.UpdatedAt)
		ch := inventory.Change{ItemID: id, StoreID: storeID, Cause: c, Delta: -it.Quantity, Before: it.Quantity, At: it.UpdatedAt}
		ev, err := inventory.Updated(it, ch, true)
		if err != nil {
			return err
		}
		x := s.t.tx().
			delete(s.t.del(InventoryItemKey(storeID, id)).If("version = ?", row.Version), errItemMoved).
			put(s.t.put(toChangeItem(ch, ev.ID)), nil).
			emit(ev)
		if counted {
			count := s.t.update(StoreKey(storeID)).Add("inventoryCount", -1)
			if it.InStock() {
				count = count.Add("inStockCount", -1)
			}
			x.update(count.If("attribute_exists(PK)"), stores.ErrNotFound)
		}
		for _, k := range row.postingKeys() {
			x.delete(s.t.del(k), nil)
		}
		err = x.run(ctx)
		if err == nil || !retryable(err) {
			if err != nil {
				return fmt.Errorf("delete inventory item %s of store %s: %w", id, storeID, err)
			}
			return nil
		}
		if attempt == changeAttempts {
			return fmt.Errorf("delete inventory item %s: %w", id, apperr.ErrContention)
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// Set creates or updates storeID's item for st.BookID to st
// (inventory.StockWriter): a new item as Create makes it, an existing
// one as write changes it, nothing when it holds st already. A create
// that loses to another create of the same item becomes an update.
// Errors: a 400 for an invalid st, books.ErrNotFound,
// stores.ErrNotFound, apperr.ErrContention.
func (s *Inventory) Set(ctx context.Context, storeID string, st inventory.Stock, c inventory.Cause) (inventory.SetResult, error) {
	if err := st.Validate(); err != nil {
		return inventory.SetResult{}, err
	}
	id := inventory.ItemID(storeID, st.BookID)
	var book *books.Book
	for attempt := 1; ; attempt++ {
		row, err := s.read(ctx, storeID, id)
		var next inventory.Item
		switch {
		case errors.Is(err, inventory.ErrNotFound):
			if book == nil {
				if book, err = (&Books{s.t}).GetBook(ctx, st.BookID); err != nil {
					return inventory.SetResult{}, err
				}
			}
			now := s.t.now()
			next = st.Apply(inventory.Item{ID: id, StoreID: storeID, BookID: st.BookID, CreatedAt: now, UpdatedAt: now})
			err = s.create(ctx, &next, book, c)
			if err == nil {
				return inventory.SetResult{Item: &next, Created: true, Changed: true}, nil
			}
			if !errors.Is(err, inventory.ErrExists) && !retryable(err) {
				return inventory.SetResult{}, err
			}
		case err != nil:
			return inventory.SetResult{}, err
		default:
			prev := row.toItem()
			next = st.Apply(*prev)
			if inventory.SameStock(prev, &next) {
				return inventory.SetResult{Item: prev}, nil
			}
			next.UpdatedAt = inventory.ChangeTime(s.t.now(), prev.UpdatedAt)
			_, err = s.write(ctx, row, &next, c)
			if err == nil {
				return inventory.SetResult{Item: &next, Changed: true}, nil
			}
			if !retryable(err) {
				return inventory.SetResult{}, err
			}
		}
		if attempt == changeAttempts {
			return inventory.SetResult{}, fmt.Errorf("set inventory item %s: %w", id, apperr.ErrContention)
		}
		if err := backoff(ctx, attempt); err != nil {
			return inventory.SetResult{}, err
		}
	}
}

// ByBooks reads storeID's items of bookIDs, keyed by book id: one
// consistent BatchGetItem (calls of 100 keys).
func (s *Inventory) ByBooks(ctx context.Context, storeID string, bookIDs []string) (map[string]*inventory.Item, error) {
	out := make(map[string]*inventory.Item, len(bookIDs))
	keys := keysOf(bookIDs, func(bookID string) Key { return InventoryItemKey(storeID, inventory.ItemID(storeID, bookID)) })
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := batchAll[inventoryItem](ctx, s.t.batch(keys...).Consistent(true))
	if err != nil {
		return nil, fmt.Errorf("read %d inventory items of store %s: %w", len(keys), storeID, err)
	}
	for _, row := range rows {
		out[row.BookID] = row.toItem()
	}
	return out, nil
}

// All calls fn with every item of storeID, walkPageSize at a time, in
// id order: one Query of the store's partition per page.
func (s *Inventory) All(ctx context.Context, storeID string, fn func([]*inventory.Item) error) error {
	return eachPage(ctx, s.t, inventoryAll(storeID), func(_ context.Context, rows []inventoryItem) error {
		items := make([]*inventory.Item, len(rows))
		for i, row := range rows {
			items[i] = row.toItem()
		}
		return fn(items)
	})
}

// History reads a page of an item's changes, newest first (one
// consistent Query of its history partition).
func (s *Inventory) History(ctx context.Context, storeID, id string, c page.Cursor) (page.Page[inventory.Change], error) {
	return queryMapped(ctx, s.t, inventoryHistory(storeID, id), c, invChangeItem.toChange)
}

// InStock reads a book's items in stock, in every store (GSI3, one
// Query; eventually consistent), at most max.
func (s *Inventory) InStock(ctx context.Context, bookID string, max int) ([]*inventory.Item, error) {
	l := bookStock(bookID)
	var rows []inventoryItem
	err := s.t.table.Get(l.index.PartitionKey, l.pk).Index(l.index.Name).Limit(max).All(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", l.name(), err)
	}
	out := make([]*inventory.Item, len(rows))
	for i, row := range rows {
		out[i] = row.toItem()
	}
	return out, nil
}

// storeCounts is what a list's total is read from: the store item's
// counts.
type storeCounts struct {
	InventoryCount int `dynamo:"inventoryCount"`
	InStockCount   int `dynamo:"inStockCount"`
}

// List reads one page of a store's items in title order. Without a
// search: the page is the tail of one Query of GSI1 (every item) or
// GSI2 (in stock) reading offset+limit items, beside one GetItem of the
// store's counts for the total. With a search: search.
func (s *Inventory) List(ctx context.Context, storeID string, q inventory.ListQuery) (inventory.ListResult, error) {
	if !q.Search.IsZero() {
		return s.search(ctx, storeID, q)
	}
	l := inventoryItems(storeID)
	if q.InStockOnly {
		l = inventoryInStock(storeID)
	}
	var (
		rows   []inventoryItem
		counts storeCounts
		g      errgroup.Group
	)
	g.Go(func() (err error) {
		rows, err = queryOffset[inventoryItem](ctx, s.t, l, q.Page)
		return err
	})
	g.Go(func() error {
		err := s.t.get(StoreKey(storeID)).Project("inventoryCount", "inStockCount").Consistent(true).One(ctx, &counts)
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return inventory.ListResult{}, fmt.Errorf("list inventory of store %s: %w", storeID, err)
	}
	res := inventory.ListResult{Items: make([]*inventory.Item, len(rows)), Total: counts.InventoryCount}
	if q.InStockOnly {
		res.Total = counts.InStockCount
	}
	for i, row := range rows {
		res.Items[i] = row.toItem()
	}
	return res, nil
}

// searchPage is the fewest postings one Query of a search asks for:
// about a page of results (the default limit, 50) with room for those
// the other words or inStockOnly leave out.
const searchPage = 100

// postingRun is a search's read of one word's postings in the store, in
// sort key order: those read so far, how many, and where the next Query
// starts (nil: the word's postings are all read).
type postingRun struct {
	word inventory.Word
	ps   []invPostingItem
	read int
	next dynamo.PagingKey
}

// more reads up to n more postings of r's word (one Query; at most
// inventory.MaxSearchPostings in all, plus one to know there are more).
func (s *Inventory) more(ctx context.Context, storeID string, r *postingRun, n int) error {
	begins := r.word.Text
	if !r.word.Prefix {
		begins += "#"
	}
	n = min(n, inventory.MaxSearchPostings+1-r.read)
	q := s.t.table.Get(AttrPK, InventoryPostingPartition(storeID, r.word.Text)).Range(AttrSK, dynamo.BeginsWith, begins).
		Project(AttrSK, "titleKey", "authorKey", "isbn13", "inStock").Limit(n)
	if r.next != nil {
		q = q.StartFrom(r.next)
	}
	var ps []invPostingItem
	next, err := q.AllWithLastEvaluatedKey(ctx, &ps)
	if err != nil {
		return fmt.Errorf("search inventory of store %s for %q: %w", storeID, r.word.Text, err)
	}
	r.ps, r.read, r.next = append(r.ps, ps...), r.read+len(ps), next
	return nil
}

// search answers a search from one word's postings, in title order. A
// whole word's postings are in title order already (SK word#titleSK),
// so it reads them (about a page, then as many as the matches so far
// say the rest needs) only until it has the page and one match more
// (paging stays stable: page k is the matches k*limit on of the same
// ordered list); its total is then a lower bound (TotalIsLowerBound),
// exact when the word's postings ran out first. To
// drive by the rarest word, the first page of each whole word's postings
// is read side by side: a word whose postings end within it drives
// (the fewest), else Driver's word goes on. A prefix's postings are in
// word order, so they are read whole (at most
// inventory.MaxSearchPostings) and sorted by title. Either way the
// matches are those having every word (and in stock, when asked), and
// the page's items are read in one BatchGetItem.
func (s *Inventory) search(ctx context.Context, storeID string, q inventory.ListQuery) (inventory.ListResult, error) {
	want := q.Page.Offset + q.Page.Limit + 1
	first := max(want, searchPage)
	d := q.Search.Driver()
	var run *postingRun
	if d.Prefix {
		run = &postingRun{word: d}
		if err := s.more(ctx, storeID, run, inventory.MaxSearchPostings+1); err != nil {
			return inventory.ListResult{}, err
		}
	} else {
		var runs []*postingRun
		for _, w := range q.Search.Words {
			if !w.Prefix && (w == d || !books.IsStopWord(w.Text)) {
				runs = append(runs, &postingRun{word: w})
			}
		}
		g, gctx := errgroup.WithContext(ctx)
		for _, r := range runs {
			g.Go(func() error { return s.more(gctx, storeID, r, first) })
		}
		if err := g.Wait(); err != nil {
			return inventory.ListResult{}, err
		}
		for _, r := range runs { // the fewest postings, all read
			if r.next == nil && (run == nil || r.read < run.read) {
				run = r
			}
		}
		for _, r := range runs { // else Driver's word, read on
			if run == nil && r.word == d {
				run = r
			}
		}
	}

	type hit struct{ titleSK, id string }
	var (
		hits []hit
		seen = map[string]bool{}
		used int // postings matched so far
		res  inventory.ListResult
	)
	match := func() {
		for _, p := range run.ps[used:min(len(run.ps), inventory.MaxSearchPostings)] {
			if q.InStockOnly && !p.InStock || !q.Search.Match(p.TitleKey, p.AuthorKey, p.ISBN13) {
				continue
			}
			titleSK := p.SK[strings.IndexByte(p.SK, '#')+1:]
			id := titleSK[strings.LastIndexByte(titleSK, '#')+1:]
			if !seen[id] {
				seen[id] = true
				hits = append(hits, hit{titleSK, id})
			}
		}
		used = len(run.ps)
	}
	match()
	for !run.word.Prefix && run.next != nil && len(hits) < want && run.read <= inventory.MaxSearchPostings {
		// As many as the matches so far say the rest of the page needs
		// (a quarter more), so that a rare match is one more Query, not
		// one per searchPage.
		need := (want - len(hits)) * run.read / max(len(hits), 1)
		if err := s.more(ctx, storeID, run, max(need+need/4, searchPage)); err != nil {
			return inventory.ListResult{}, err
		}
		match()
	}
	if run.word.Prefix { // sorted by word first: the words of one prefix interleave titles
		slices.SortFunc(hits, func(a, b hit) int { return strings.Compare(a.titleSK, b.titleSK) })
	}
	res.Total, res.TotalIsLowerBound = len(hits), run.next != nil
	from, to := min(q.Page.Offset, len(hits)), min(q.Page.Offset+q.Page.Limit, len(hits))
	ids := make([]string, 0, to-from)
	for _, h := range hits[from:to] {
		ids = append(ids, h.id)
	}
	var err error
	res.Items, err = s.getItems(ctx, storeID, ids)
	if q.InStockOnly {
		// A posting's stock flag follows an order's sale of the last copy
		// just after the order's commit (orders.go): the item's own
		// quantity decides, so a flag a crash left behind never shows a
		// sold-out item.
		res.Items = slices.DeleteFunc(res.Items, func(it *inventory.Item) bool { return !it.InStock() })
	}
	return res, err
}

// getItems reads storeID's items ids, in the order of ids (one
// BatchGetItem, eventually consistent as the postings that named them
// are: half the read units); an item gone since is left out.
func (s *Inventory) getItems(ctx context.Context, storeID string, ids []string) ([]*inventory.Item, error) {
	if len(ids) == 0 {
		return []*inventory.Item{}, nil
	}
	keys := keysOf(ids, func(id string) Key { return InventoryItemKey(storeID, id) })
	rows, err := batchAll[inventoryItem](ctx, s.t.batch(keys...))
	if err != nil {
		return nil, fmt.Errorf("read %d inventory items of store %s: %w", len(keys), storeID, err)
	}
	byID := make(map[string]*inventory.Item, len(rows))
	for _, row := range rows {
		byID[row.ID] = row.toItem()
	}
	return inOrder(ids, byID), nil
}

// releaseStore removes a deleting store's items and their postings, one
// small transaction per item that also writes the item's last history
// entry (cause delete, reason StoreDeletedReason) and its event, as
// Delete does for one item (its history stays, as a deleted item's
// does). An item removed meanwhile is skipped. The store's counts go
// with the store.
func (s *Inventory) releaseStore(ctx context.Context, storeID string) error {
	c := inventory.Cause{Kind: inventory.CauseDelete, Reason: StoreDeletedReason}
	return eachPage(ctx, s.t, inventoryAll(storeID), func(ctx context.Context, rows []inventoryItem) error {
		return eachItem(ctx, rows, func(ctx context.Context, row inventoryItem) error {
			err := s.remove(ctx, storeID, row.ID, c, false)
			if errors.Is(err, inventory.ErrNotFound) {
				return nil
			}
			return err
		})
	})
}

// StoreDeletedReason is the reason of the history entries and events of
// the items a store's deletion removes.
const StoreDeletedReason = "store deleted"
