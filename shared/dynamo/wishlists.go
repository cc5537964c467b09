package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
	"github.com/bookplatform/backend/shared/wishlists"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Wishlists stores wishlists and their entries (the books on them).
type Wishlists struct{ t *table }

var _ wishlists.Storer = (*Wishlists)(nil)

// wishlistItem is a wishlist as stored (WishlistKey), listed on GSI1
// under its owner (userWishlists) and, only while public, on GSI2
// (publicWishlists), both sorted by timeIDKey. itemCount changes only
// with ADD, in the transactions that add or remove an entry.
type wishlistItem struct {
	PK          string    `dynamo:"PK"`
	SK          string    `dynamo:"SK"`
	GSI1PK      string    `dynamo:"GSI1PK"`
	GSI1SK      string    `dynamo:"GSI1SK"`
	GSI2PK      string    `dynamo:"GSI2PK,omitempty"`
	GSI2SK      string    `dynamo:"GSI2SK,omitempty"`
	Type        string    `dynamo:"type"`
	ID          string    `dynamo:"id"`
	UserID      string    `dynamo:"userId"`
	Name        string    `dynamo:"name"`
	Description string    `dynamo:"description"`
	IsPublic    bool      `dynamo:"isPublic"`
	ItemCount   int       `dynamo:"itemCount"`
	CreatedAt   time.Time `dynamo:"createdAt"`
	UpdatedAt   time.Time `dynamo:"updatedAt"`
}

// wishlistEntryItem is a book on a wishlist (WishlistEntryKey). It
// carries the owner's id, so that a change of it is one conditional
// write. Counted: the entry is one of its owner's wish's entryCount
// (wishlists_demand.go); entries stored before demand was kept are not,
// and their removal changes no count.
type wishlistEntryItem struct {
	PK         string    `dynamo:"PK"`
	SK         string    `dynamo:"SK"`
	Type       string    `dynamo:"type"`
	WishlistID string    `dynamo:"wishlistId"`
	UserID     string    `dynamo:"userId"`
	BookID     string    `dynamo:"bookId"`
	Priority   int       `dynamo:"priority"`
	Notes      string    `dynamo:"notes"`
	Counted    bool      `dynamo:"counted,omitempty"`
	AddedAt    time.Time `dynamo:"addedAt"`
	UpdatedAt  time.Time `dynamo:"updatedAt"`
}

func toWishlistItem(w *wishlists.Wishlist) wishlistItem {
	k, sk := WishlistKey(w.ID), timeIDKey(w.CreatedAt, w.ID)
	it := wishlistItem{
		PK: k.PK, SK: k.SK, GSI1PK: userWishlists(w.UserID).pk, GSI1SK: sk,
		Type: typeWishlist, ID: w.ID, UserID: w.UserID, Name: w.Name, Description: w.Description,
		IsPublic: w.IsPublic, ItemCount: w.ItemCount, CreatedAt: w.CreatedAt.UTC(), UpdatedAt: w.UpdatedAt.UTC(),
	}
	if w.IsPublic {
		it.GSI2PK, it.GSI2SK = publicWishlists(w.UserID).pk, sk
	}
	return it
}

func (it wishlistItem) toWishlist() *wishlists.Wishlist {
	return &wishlists.Wishlist{
		ID: it.ID, UserID: it.UserID, Name: it.Name, Description: it.Description, IsPublic: it.IsPublic,
		ItemCount: it.ItemCount, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

func toWishlistEntryItem(e *wishlists.Item) wishlistEntryItem {
	k := WishlistEntryKey(e.WishlistID, e.BookID)
	return wishlistEntryItem{
		PK: k.PK, SK: k.SK, Type: typeWishlistEntry, WishlistID: e.WishlistID, UserID: e.UserID, BookID: e.BookID,
		Priority: e.Priority, Notes: e.Notes, AddedAt: e.AddedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC(),
	}
}

func (it wishlistEntryItem) toItem() *wishlists.Item {
	return &wishlists.Item{
		ID: it.BookID, WishlistID: it.WishlistID, UserID: it.UserID, BookID: it.BookID,
		Priority: it.Priority, Notes: it.Notes, AddedAt: it.AddedAt, UpdatedAt: it.UpdatedAt,
	}
}

// CreateWishlist puts the wishlist and adds one to the owner's
// wishlistCount in one TransactWriteItems; with a limit, the count's
// update is conditional on being under it (a count never written is 0),
// so of two creates racing for the last place one fails. Errors:
// wishlists.ErrLimitReached.
func (s *Wishlists) CreateWishlist(ctx context.Context, w *wishlists.Wishlist, limit int) error {
	count := s.t.update(UserKey(w.UserID)).Add("wishlistCount", 1)
	if limit > 0 {
		count = count.If("attribute_exists(PK) AND (attribute_not_exists(wishlistCount) OR wishlistCount < ?)", limit)
	} else {
		count = count.If("attribute_exists(PK)")
	}
	err := s.t.tx().
		// The caller's account exists (the request was admitted), so a
		// failed condition is the limit.
		update(count, wishlists.ErrLimitReached).
		put(s.t.put(toWishlistItem(w)).If("attribute_not_exists(PK)"), errIDTaken).
		run(ctx)
	if err != nil {
		return fmt.Errorf("create wishlist %s: %w", w.ID, err)
	}
	return nil
}

// GetWishlist reads a wishlist, strongly consistent. Errors:
// wishlists.ErrNotFound.
func (s *Wishlists) GetWishlist(ctx context.Context, id string) (*wishlists.Wishlist, error) {
	return getOne(ctx, s.t, WishlistKey(id), wishlistItem.toWishlist, wishlists.ErrNotFound, "wishlist "+id)
}

// ListItems reads at most max entries of a wishlist with one consistent
// Query of its partition: an entry without notes is about 250 bytes, so
// 500 fit in one 1 MB response page; long notes make it two or three.
func (s *Wishlists) ListItems(ctx context.Context, wishlistID string, max int) ([]*wishlists.Item, error) {
	p, err := queryPage[wishlistEntryItem](ctx, s.t, wishlistEntries(wishlistID), page.First(max))
	if err != nil {
		return nil, err
	}
	return page.Map(p, wishlistEntryItem.toItem).Items, nil
}

// ListUserWishlists reads a page of a user's wishlists, oldest first
// (GSI1).
func (s *Wishlists) ListUserWishlists(ctx context.Context, userID string, c page.Cursor) (page.Page[*wishlists.Wishlist], error) {
	return s.list(ctx, userWishlists(userID), c)
}

// ListPublicWishlists reads a page of a user's public wishlists, oldest
// first (GSI2, which holds public wishlists only).
func (s *Wishlists) ListPublicWishlists(ctx context.Context, userID string, c page.Cursor) (page.Page[*wishlists.Wishlist], error) {
	return s.list(ctx, publicWishlists(userID), c)
}

// list reads a page of wishlists. Index reads are eventually consistent:
// a wishlist created a moment ago may miss the page being read.
func (s *Wishlists) list(ctx context.Context, l list, c page.Cursor) (page.Page[*wishlists.Wishlist], error) {
	return queryMapped(ctx, s.t, l, c, wishlistItem.toWishlist)
}

// UpdateWishlist is one UpdateItem conditional on the wishlist existing
// and being ownerID's, returning the new item. Making it public writes
// its GSI2 keys (a copy of GSI1SK: the same order), making it private
// removes them. Only when the condition fails is the wishlist read, to
// tell 404 from 403. Errors: wishlists.ErrNotFound, ErrNotOwner.
func (s *Wishlists) UpdateWishlist(ctx context.Context, ownerID, id string, ch wishlists.UpdateWishlist, now time.Time) (*wishlists.Wishlist, error) {
	upd := s.t.update(WishlistKey(id)).Set("updatedAt", now.UTC()).
		If("attribute_exists(PK) AND userId = ?", ownerID)
	if ch.Name != nil {
		upd = upd.Set("name", *ch.Name)
	}
	if ch.Description != nil {
		upd = setOrRemove(upd, "description", *ch.Description)
	}
	if ch.IsPublic != nil {
		upd = upd.Set("isPublic", *ch.IsPublic)
		if *ch.IsPublic {
			upd = upd.Set(AttrGSI2PK, publicWishlists(ownerID).pk).SetExpr("$ = $", AttrGSI2SK, AttrGSI1SK)
		} else {
			upd = upd.Remove(AttrGSI2PK, AttrGSI2SK)
		}
	}
	return updateOwned(ctx, upd, wishlistItem.toWishlist, s.GetWishlist, wishlists.ErrNotOwner, "wishlist", id)
}

// DeleteWishlist removes the wishlist and subtracts one from its owner's
// wishlistCount in one TransactWriteItems. An entry added after it cannot
// land: AddItem requires the wishlist item. Errors: wishlists.ErrNotFound
// (gone, or no longer w.UserID's).
func (s *Wishlists) DeleteWishlist(ctx context.Context, w *wishlists.Wishlist) error {
	err := s.t.tx().
		delete(s.t.del(WishlistKey(w.ID)).If("attribute_exists(PK) AND userId = ?", w.UserID), wishlists.ErrNotFound).
		update(s.t.update(UserKey(w.UserID)).Add("wishlistCount", -1).If("attribute_exists(PK)"), users.ErrNotFound).
		run(ctx)
	if err != nil {
		return fmt.Errorf("delete wishlist %s: %w", w.ID, err)
	}
	return nil
}

// DeleteWishlistItems removes a deleted wishlist's entries: one
// consistent Query of its partition, then 30 entries to a transaction
// that also takes each counted one from its wish and, for a wish's last
// entry, from its store's demand count (at most WISHLIST_MAX_ITEMS
// entries: for the default 500, 17 transactions, each after one or two
// BatchGetItem of what it changes).
func (s *Wishlists) DeleteWishlistItems(ctx context.Context, id string) error {
	var entries []wishlistEntryItem
	err := s.t.table.Get(AttrPK, WishlistKey(id).PK).Range(AttrSK, dynamo.BeginsWith, wishlistEntryPrefix).
		Consistent(true).Project(AttrPK, AttrSK, "userId", "bookId", "counted").All(ctx, &entries)
	if err != nil {
		return fmt.Errorf("entries of wishlist %s: %w", id, err)
	}
	// Three items an entry (itself, its wish, a counter).
	const chunk = 30
	for start := 0; start < len(entries); start += chunk {
		part := entries[start:min(start+chunk, len(entries))]
		err := optimistic.Retry(demandAttempts, func(int) error { return s.purgeEntries(ctx, part) }, errDemandStale)
		if err != nil {
			return fmt.Errorf("entries of wishlist %s: %w", id, err)
		}
	}
	return nil
}

// purgeEntries deletes entries of a deleted wishlist (all of one owner,
// each of another book) with what the counted ones change of demand, in
// one transaction computed from fresh reads of them, their wishes and
// the counters.
func (s *Wishlists) purgeEntries(ctx context.Context, part []wishlistEntryItem) error {
	keys := make([]Key, 0, 2*len(part))
	for _, e := range part {
		keys = append(keys, Key{e.PK, e.SK})
		if e.Counted {
			keys = append(keys, WishKey(e.UserID, e.BookID))
		}
	}
	st, err := s.t.readDemand(ctx, keys)
	if err != nil {
		return err
	}
	if st, err = s.withCounters(ctx, st, part); err != nil {
		return err
	}
	x := s.t.tx()
	for _, e := range part {
		if _, ok := st[Key{e.PK, e.SK}]; !ok {
			continue // removed meanwhile, with its count
		}
		x.delete(s.t.del(Key{e.PK, e.SK}).If("attribute_exists(PK)"), errDemandStale)
		if e.Counted {
			s.t.dropWish(x, st, e.UserID, e.BookID)
		}
	}
	if x.len() == 0 {
		return nil
	}
	return x.run(ctx)
}

// withCounters adds to st the counters of the stores the wishes of
// entries (read in st) are counted at.
func (s *Wishlists) withCounters(ctx context.Context, st demandState, entries []wishlistEntryItem) (demandState, error) {
	var keys []Key
	for _, e := range entries {
		if w, ok := st[WishKey(e.UserID, e.BookID)]; ok && w.StoreID != "" && w.EntryCount == 1 {
			keys = append(keys, StoreDemandKey(w.StoreID, e.BookID))
		}
	}
	more, err := s.t.readDemand(ctx, keys)
	if err != nil {
		return nil, err
	}
	for k, v := range more {
		st[k] = v
	}
	return st, nil
}

// errWishlistRefused is an entry's change refused by its wishlist's
// condition (missing, another owner's, full) or its own (missing,
// another owner's): the store reads to say which.
var errWishlistRefused = errors.New("wishlist or entry condition failed")

// AddItem puts the entry, adds one to its wishlist's itemCount (and
// moves its updatedAt), checks that the book exists and counts the wish
// (addWish: a reader's first entry of the book counts one more reader at
// home, their home store as read, checked on the user item), in one
// TransactWriteItems computed from a consistent read of the wish and
// home's counter. A lost race on the wish, the counter or the home store
// reads again and retries. Only when the wishlist's condition fails is
// it read, to tell 404 from 403 from a full list. Errors:
// wishlists.ErrNotFound, ErrNotOwner, ErrFull, books.ErrNotFound,
// ErrAlreadyListed.
func (s *Wishlists) AddItem(ctx context.Context, e *wishlists.Item, max int, home string) error {
	moved := false
	err := optimistic.Retry(demandAttempts, func(int) error {
		if moved {
			var err error
			if home, err = s.t.homeStoreOf(ctx, e.UserID); err != nil {
				return err
			}
		}
		st, err := s.t.readDemand(ctx, demandKeys(e.UserID, e.BookID, home))
		if err != nil {
			return err
		}
		entry := toWishlistEntryItem(e)
		entry.Counted = true
		x := s.t.tx().
			update(s.t.update(WishlistKey(e.WishlistID)).Add("itemCount", 1).Set("updatedAt", e.AddedAt.UTC()).
				If("attribute_exists(PK) AND userId = ? AND itemCount < ?", e.UserID, max), errWishlistRefused).
			check(s.t.check(BookKey(e.BookID)).If("attribute_exists(PK)"), books.ErrNotFound).
			put(s.t.put(entry).If("attribute_not_exists(PK)"), wishlists.ErrAlreadyListed)
		s.t.addWish(x, st, e.UserID, e.BookID, home)
		err = x.run(ctx)
		moved = errors.Is(err, errHomeMoved)
		return err
	}, errDemandStale, errHomeMoved)
	if errors.Is(err, errWishlistRefused) {
		w, err := s.GetWishlist(ctx, e.WishlistID)
		switch {
		case err != nil:
			return err
		case w.UserID != e.UserID:
			return fmt.Errorf("add to wishlist %s: %w", e.WishlistID, wishlists.ErrNotOwner)
		case w.ItemCount >= max:
			return fmt.Errorf("add to wishlist %s: %w", e.WishlistID, wishlists.ErrFull)
		}
		// An entry was removed between the refusal and the read.
		return fmt.Errorf("add to wishlist %s: %w", e.WishlistID, apperr.ErrContention)
	}
	if err != nil {
		return fmt.Errorf("add book %s to wishlist %s: %w", e.BookID, e.WishlistID, err)
	}
	return nil
}

// UpdateItem is one UpdateItem of the entry, conditional on it existing
// and being ownerID's, returning the new item; a change of no field
// writes nothing and reads the entry. On a failed condition (or with no
// change) the wishlist and the entry are read side by side to tell the
// errors apart. Errors: wishlists.ErrNotFound, ErrNotOwner,
// ErrItemNotFound.
func (s *Wishlists) UpdateItem(ctx context.Context, ownerID, wishlistID, itemID string, ch wishlists.UpdateItem, now time.Time) (*wishlists.Item, error) {
	if ch.Priority == nil && ch.Notes == nil {
		return s.ownedEntry(ctx, ownerID, wishlistID, itemID)
	}
	upd := s.t.update(WishlistEntryKey(wishlistID, itemID)).Set("updatedAt", now.UTC()).
		If("attribute_exists(PK) AND userId = ?", ownerID)
	if ch.Priority != nil {
		upd = upd.Set("priority", *ch.Priority)
	}
	if ch.Notes != nil {
		upd = setOrRemove(upd, "notes", *ch.Notes)
	}
	var it wishlistEntryItem
	err := upd.Value(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		if _, err := s.ownedEntry(ctx, ownerID, wishlistID, itemID); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("update entry %s of wishlist %s: %w", itemID, wishlistID, apperr.ErrContention)
	}
	if err != nil {
		return nil, fmt.Errorf("update entry %s of wishlist %s: %w", itemID, wishlistID, err)
	}
	return it.toItem(), nil
}

// DeleteItem removes the entry (conditional on it existing and being
// ownerID's), subtracts one from its wishlist's itemCount and, for a
// counted entry, takes it from its wish (dropWish), in one
// TransactWriteItems computed from a consistent read of the entry and
// the wish (and of the wish's counter, when it is the last entry). A lost
// race on the wish or the counter reads again and retries. Errors:
// wishlists.ErrNotFound, ErrNotOwner, ErrItemNotFound.
func (s *Wishlists) DeleteItem(ctx context.Context, ownerID, wishlistID, itemID string, now time.Time) error {
	ek := WishlistEntryKey(wishlistID, itemID)
	err := optimistic.Retry(demandAttempts, func(int) error {
		st, err := s.t.readDemand(ctx, []Key{ek, WishKey(ownerID, itemID)})
		if err != nil {
			return err
		}
		x := s.t.tx().
			delete(s.t.del(ek).If("attribute_exists(PK) AND userId = ?", ownerID), errWishlistRefused).
			update(s.t.update(WishlistKey(wishlistID)).Add("itemCount", -1).Set("updatedAt", now.UTC()).If("attribute_exists(PK)"), wishlists.ErrNotFound)
		if e, ok := st[ek]; ok && e.Counted && e.UserID == ownerID {
			if st, err = s.withCounters(ctx, st, []wishlistEntryItem{{UserID: ownerID, BookID: itemID}}); err != nil {
				return err
			}
			s.t.dropWish(x, st, ownerID, itemID)
		}
		return x.run(ctx)
	}, errDemandStale)
	if errors.Is(err, errWishlistRefused) {
		if _, err := s.ownedEntry(ctx, ownerID, wishlistID, itemID); err != nil {
			return err
		}
		return fmt.Errorf("delete entry %s of wishlist %s: %w", itemID, wishlistID, apperr.ErrContention)
	}
	if err != nil {
		return fmt.Errorf("delete entry %s of wishlist %s: %w", itemID, wishlistID, err)
	}
	return nil
}

// ownedEntry reads a wishlist and one of its entries side by side
// (consistent) and returns the entry if ownerID owns the wishlist.
// Errors: wishlists.ErrNotFound, ErrNotOwner, ErrItemNotFound.
func (s *Wishlists) ownedEntry(ctx context.Context, ownerID, wishlistID, itemID string) (*wishlists.Item, error) {
	var (
		w     *wishlists.Wishlist
		it    wishlistEntryItem
		found bool
		g     errgroup.Group
	)
	g.Go(func() (err error) { w, err = s.GetWishlist(ctx, wishlistID); return err })
	g.Go(func() error {
		err := s.t.get(WishlistEntryKey(wishlistID, itemID)).Consistent(true).One(ctx, &it)
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil
		}
		found = err == nil
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("entry %s of wishlist %s: %w", itemID, wishlistID, err)
	}
	switch {
	case w.UserID != ownerID:
		return nil, fmt.Errorf("entry %s of wishlist %s: %w", itemID, wishlistID, wishlists.ErrNotOwner)
	case !found:
		return nil, fmt.Errorf("entry %s of wishlist %s: %w", itemID, wishlistID, wishlists.ErrItemNotFound)
	}
	return it.toItem(), nil
}
