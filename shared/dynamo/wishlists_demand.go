package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/wishlists"
	"github.com/guregu/dynamo/v2"
)

// Wishlist demand (docs/decisions.md, "Wishlist demand"): a store's count
// of a book is the number of readers counted at the store (their home
// store) who have the book on at least one wishlist. Two items keep it,
// changed in the transactions that add and remove wishlist entries:
//
//   - the reader's wish (WishKey): how many of their entries name the
//     book (entryCount) and the store it is counted at (storeId, "" for
//     a reader without a home store); a second entry of the same book
//     only adds to entryCount, so a reader counts once per book;
//   - the store's counter (StoreDemandKey): wishCount, listed on GSI1
//     under the store's slug by demandKey, so the ranking is one Query.
//
// Both are written conditional on the values read (entryCount,
// wishCount, and the reader's homeStoreId when a new wish picks its
// store): a concurrent change fails the transaction as errDemandStale
// and the change is computed again from fresh reads, so the counts stay
// exact however many readers wish at once.

// wishItem is a reader's wish for a book (WishKey).
type wishItem struct {
	PK         string `dynamo:"PK"`
	SK         string `dynamo:"SK"`
	Type       string `dynamo:"type"`
	UserID     string `dynamo:"userId"`
	BookID     string `dynamo:"bookId"`
	EntryCount int    `dynamo:"entryCount"`
	StoreID    string `dynamo:"storeId,omitempty"`
}

// demandItem is a store's count of readers wishing for a book
// (StoreDemandKey), on GSI1 under storeDemand.
type demandItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	GSI1PK    string `dynamo:"GSI1PK"`
	GSI1SK    string `dynamo:"GSI1SK"`
	Type      string `dynamo:"type"`
	StoreID   string `dynamo:"storeId"`
	BookID    string `dynamo:"bookId"`
	WishCount int    `dynamo:"wishCount"`
}

// demandRead is a wish, a counter or a wishlist entry as read before a
// change: the fields the change's conditions compare.
type demandRead struct {
	PK         string `dynamo:"PK"`
	SK         string `dynamo:"SK"`
	EntryCount int    `dynamo:"entryCount"`
	StoreID    string `dynamo:"storeId"`
	WishCount  int    `dynamo:"wishCount"`
	// An entry's: its owner, and whether its wish counts it.
	UserID  string `dynamo:"userId"`
	BookID  string `dynamo:"bookId"`
	Counted bool   `dynamo:"counted"`
	// A store's: its slug, the partition of its counters' list.
	Slug string `dynamo:"slug"`
}

// demandAttrs are the attributes demandRead decodes.
var demandAttrs = []string{AttrPK, AttrSK, "entryCount", "storeId", "wishCount", "userId", "bookId", "counted", "slug"}

// Failures a demand change retries after reading again.
var (
	// errDemandStale: a wish or a counter changed since it was read.
	errDemandStale = errors.New("wish or demand count changed since read")
	// errHomeMoved: the reader's home store is not the one read.
	errHomeMoved = errors.New("home store changed since read")
)

// demandAttempts is how many lost races a demand change tolerates: a
// counter is shared by every reader of a store wishing for one book, and
// a popular book's readers can add it at once.
const demandAttempts = 20

// demandState is what a change of wishes is computed from: wishes and
// counters by key (absent: none), read together.
type demandState map[Key]demandRead

// readDemand reads the items at keys, strongly consistent, in one
// BatchGetItem (up to 100 keys a call).
func (t *table) readDemand(ctx context.Context, keys []Key) (demandState, error) {
	st := demandState{}
	if len(keys) == 0 {
		return st, nil
	}
	seen := map[Key]bool{}
	batch := make([]dynamo.Keyed, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			batch = append(batch, k.keyed())
		}
	}
	items, err := batchAll[demandRead](ctx, t.batch(batch...).Project(demandAttrs...).Consistent(true))
	if err != nil {
		return nil, fmt.Errorf("read wishes and demand: %w", err)
	}
	for _, it := range items {
		st[Key{it.PK, it.SK}] = it
	}
	return st, nil
}

// addWish adds to x what one more entry of bookID on userID's wishlists
// changes: the wish's entryCount, or a new wish counted at home (the
// reader's home store as read, "" for none: checked on the user item) and
// one more at home's counter.
func (t *table) addWish(x *tx, st demandState, userID, bookID, home string) {
	wk := WishKey(userID, bookID)
	if w, ok := st[wk]; ok {
		x.update(t.update(wk).Add("entryCount", 1).If("entryCount = ?", w.EntryCount), errDemandStale)
		return
	}
	x.put(t.put(wishItem{PK: wk.PK, SK: wk.SK, Type: typeWish, UserID: userID, BookID: bookID, EntryCount: 1, StoreID: home}).
		If("attribute_not_exists(PK)"), errDemandStale)
	if home == "" {
		x.check(t.check(UserKey(userID)).If("attribute_not_exists(homeStoreId)"), errHomeMoved)
		return
	}
	x.check(t.check(UserKey(userID)).If("homeStoreId = ?", home), errHomeMoved)
	t.countDemand(x, st, home, bookID, +1)
}

// dropWish adds to x what one entry fewer of bookID on userID's
// wishlists changes: the wish's entryCount, or, for its last entry, the
// wish and one from its store's counter. An entry without a wish (never
// counted) changes nothing.
func (t *table) dropWish(x *tx, st demandState, userID, bookID string) {
	wk := WishKey(userID, bookID)
	w, ok := st[wk]
	if !ok || w.EntryCount <= 0 {
		return
	}
	if w.EntryCount > 1 {
		x.update(t.update(wk).Add("entryCount", -1).If("entryCount = ?", w.EntryCount), errDemandStale)
		return
	}
	x.delete(t.del(wk).If("entryCount = ?", 1), errDemandStale)
	if w.StoreID != "" {
		t.countDemand(x, st, w.StoreID, bookID, -1)
	}
}

// countDemand adds to x the change of storeID's counter of bookID by
// delta, conditional on the count read: a counter reaching 0 is deleted
// (it leaves the ranking). A decrement of a counter that is not there
// (its store was deleted, and its counters with it) writes nothing, nor
// does a first count at a store that was not read (gone): the wish names
// the store and counts nowhere.
func (t *table) countDemand(x *tx, st demandState, storeID, bookID string, delta int) {
	k := StoreDemandKey(storeID, bookID)
	was := st[k].WishCount
	n := was + delta
	slug := st[StoreKey(storeID)].Slug
	switch {
	case was <= 0 && (delta < 0 || slug == ""):
	case was <= 0:
		x.put(t.put(demandItem{PK: k.PK, SK: k.SK, GSI1PK: storeDemand(slug).pk, GSI1SK: demandKey(n, bookID),
			Type: typeStoreDemand, StoreID: storeID, BookID: bookID, WishCount: n}).If("attribute_not_exists(PK)"), errDemandStale)
	case n <= 0:
		x.delete(t.del(k).If("wishCount = ?", was), errDemandStale)
	default:
		x.update(t.update(k).Set("wishCount", n).Set(AttrGSI1SK, demandKey(n, bookID)).If("wishCount = ?", was), errDemandStale)
	}
}

// demandKeys are the keys a change of userID's wish for bookID reads:
// the wish and, when the change may count it, home's counter and home
// itself (its slug, for a first count).
func demandKeys(userID, bookID, home string) []Key {
	keys := []Key{WishKey(userID, bookID)}
	if home != "" {
		keys = append(keys, StoreDemandKey(home, bookID), StoreKey(home))
	}
	return keys
}

// homeStoreOf reads userID's home store ("" for none), strongly
// consistent.
func (t *table) homeStoreOf(ctx context.Context, userID string) (string, error) {
	var u struct {
		HomeStoreID string `dynamo:"homeStoreId"`
	}
	err := t.get(UserKey(userID)).Project("homeStoreId").Consistent(true).One(ctx, &u)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return "", fmt.Errorf("home store of %s: %w", userID, err)
	}
	return u.HomeStoreID, nil
}

// TopDemand reads a page of the demand of the store with slug, most
// readers first (ties by book id, descending): one Query of GSI1. Index
// reads are eventually consistent: a wish added a moment ago may not be
// counted yet. Errors: page.ErrInvalidCursor.
func (s *Wishlists) TopDemand(ctx context.Context, slug string, c page.Cursor) (page.Page[wishlists.Demand], error) {
	return queryMapped(ctx, s.t, storeDemand(slug), c, func(it demandItem) wishlists.Demand {
		return wishlists.Demand{StoreID: it.StoreID, BookID: it.BookID, Count: it.WishCount}
	})
}

// MoveWishes counts every wish of userID at the reader's home store
// (home, "" for none) that is counted elsewhere: after a change of home
// store, each wish moves from its old store's counter to the new one's.
// The work is bounded by the books the reader wishes for (one
// consistent Query of their wishes, then per 30 wishes one BatchGetItem
// of the counters and one transaction); each transaction checks that
// home is still the reader's home store, so a move overtaken by a later
// change stops, and that later change's move does the rest. Errors:
// errHomeMoved when overtaken.
func (s *Wishlists) MoveWishes(ctx context.Context, userID, home string) error {
	var all []wishItem
	err := s.t.table.Get(AttrPK, WishKey(userID, "").PK).Range(AttrSK, dynamo.BeginsWith, "BOOK#").
		Consistent(true).All(ctx, &all)
	if err != nil {
		return fmt.Errorf("wishes of %s: %w", userID, err)
	}
	var move []wishItem
	for _, w := range all {
		if w.StoreID != home {
			move = append(move, w)
		}
	}
	// Three items a wish (the wish, two counters) and the home check:
	// 30 wishes are 91 items of the 100 a transaction takes.
	const chunk = 30
	for start := 0; start < len(move); start += chunk {
		part := move[start:min(start+chunk, len(move))]
		err := optimistic.Retry(demandAttempts, func(int) error { return s.moveWishes(ctx, userID, home, part) }, errDemandStale)
		if err != nil {
			return fmt.Errorf("move wishes of %s to store %q: %w", userID, home, err)
		}
	}
	return nil
}

// moveWishes moves part (wishes as first read) to home in one
// transaction, reading the wishes and both counters of each first.
func (s *Wishlists) moveWishes(ctx context.Context, userID, home string, part []wishItem) error {
	var keys []Key
	if home != "" {
		keys = append(keys, StoreKey(home))
	}
	for _, w := range part {
		keys = append(keys, WishKey(userID, w.BookID))
		if w.StoreID != "" {
			keys = append(keys, StoreDemandKey(w.StoreID, w.BookID))
		}
		if home != "" {
			keys = append(keys, StoreDemandKey(home, w.BookID))
		}
	}
	st, err := s.t.readDemand(ctx, keys)
	if err != nil {
		return err
	}
	x := s.t.tx()
	if home == "" {
		x.check(s.t.check(UserKey(userID)).If("attribute_not_exists(homeStoreId)"), errHomeMoved)
	} else {
		x.check(s.t.check(UserKey(userID)).If("homeStoreId = ?", home), errHomeMoved)
	}
	for _, w := range part {
		cur, ok := st[WishKey(userID, w.BookID)]
		if !ok || cur.StoreID == home {
			continue // gone, or moved already
		}
		upd := s.t.update(WishKey(userID, w.BookID)).If("entryCount = ? AND storeId = ?", cur.EntryCount, cur.StoreID)
		if cur.StoreID == "" {
			upd = s.t.update(WishKey(userID, w.BookID)).If("entryCount = ? AND attribute_not_exists(storeId)", cur.EntryCount)
		}
		if home == "" {
			upd = upd.Remove("storeId")
		} else {
			upd = upd.Set("storeId", home)
		}
		x.update(upd, errDemandStale)
		if cur.StoreID != "" {
			s.t.countDemand(x, st, cur.StoreID, w.BookID, -1)
		}
		if home != "" {
			s.t.countDemand(x, st, home, w.BookID, +1)
		}
	}
	if x.len() == 1 {
		return nil
	}
	return x.run(ctx)
}
