package wishlists

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/text"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Storer is the storage of wishlists and their items. Implementations
// return the errors named on each method wrapped with context, never
// (nil, nil).
type Storer interface {
	// CreateWishlist stores w and adds one to its owner's wishlistCount
	// in one transaction, conditional on the count being under limit (0:
	// no limit), so concurrent creates never pass the limit. Errors:
	// ErrLimitReached.
	CreateWishlist(ctx context.Context, w *Wishlist, limit int) error
	// GetWishlist reads a wishlist, strongly consistent. Errors:
	// ErrNotFound.
	GetWishlist(ctx context.Context, id string) (*Wishlist, error)
	// ListItems reads at most max items of a wishlist, strongly
	// consistent, in no particular order.
	ListItems(ctx context.Context, wishlistID string, max int) ([]*Item, error)
	// ListUserWishlists reads a page of a user's wishlists, oldest first;
	// ListPublicWishlists one of the public ones only. Errors:
	// page.ErrInvalidCursor.
	ListUserWishlists(ctx context.Context, userID string, c page.Cursor) (page.Page[*Wishlist], error)
	ListPublicWishlists(ctx context.Context, userID string, c page.Cursor) (page.Page[*Wishlist], error)
	// UpdateWishlist applies ch to the wishlist if ownerID owns it and
	// returns it as stored afterwards. Errors: ErrNotFound, ErrNotOwner.
	UpdateWishlist(ctx context.Context, ownerID, id string, ch UpdateWishlist, now time.Time) (*Wishlist, error)
	// DeleteWishlist removes w, if it is still there and still
	// w.UserID's, and subtracts one from the owner's wishlistCount, in one
	// transaction. Its items stay until DeleteWishlistItems. Errors:
	// ErrNotFound.
	DeleteWishlist(ctx context.Context, w *Wishlist) error
	// DeleteWishlistItems removes every item of a wishlist that no
	// longer exists, uncounting its owner's wishes as DeleteItem does;
	// nothing left to remove is not an error.
	DeleteWishlistItems(ctx context.Context, id string) error
	// AddItem stores it on its wishlist and adds one to the wishlist's
	// itemCount in one transaction, conditional on the wishlist being
	// it.UserID's and holding fewer than max items, and on the book
	// existing; in the same transaction it counts the owner's wish for
	// the book at their home store (homeStoreID as last read, "" for
	// none; storage checks it and reads it again when it changed).
	// Errors: ErrNotFound, ErrNotOwner, ErrFull, books.ErrNotFound,
	// ErrAlreadyListed.
	AddItem(ctx context.Context, it *Item, max int, homeStoreID string) error
	// UpdateItem applies ch to an item of a wishlist ownerID owns and
	// returns the item as stored afterwards. Errors: ErrNotFound,
	// ErrNotOwner, ErrItemNotFound.
	UpdateItem(ctx context.Context, ownerID, wishlistID, itemID string, ch UpdateItem, now time.Time) (*Item, error)
	// DeleteItem removes an item of a wishlist ownerID owns and subtracts
	// one from its itemCount, in one transaction that also uncounts the
	// owner's wish when it was the book's last entry. Errors:
	// ErrNotFound, ErrNotOwner, ErrItemNotFound.
	DeleteItem(ctx context.Context, ownerID, wishlistID, itemID string, now time.Time) error
}

// Deps are the service's collaborators.
type Deps struct {
	Store  Storer
	Demand DemandStorer // a store's wishlist demand
	Stock  Stock        // the store's items of its demand's books
	Users  posts.Users  // a list's owner by name
	Books  posts.Books  // the book of an item just added
	Briefs posts.Reader // the owner and books of a wishlist's view
	Limits Limits
	Now    func() time.Time
}

// Service implements wishlists and their items.
type Service struct {
	d Deps
}

// NewService returns the wishlists service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Create makes a wishlist for caller, within the tier's limit. Errors:
// ValidationError, Forbidden (the tier's limit, with details).
func (s *Service) Create(ctx context.Context, caller *users.User, in NewWishlist) (*Wishlist, error) {
	var f apperr.Fields
	name, msg := text.Name(in.Name, MaxNameRunes)
	f.Add("name", msg)
	description, msg := text.Prose(in.Description, MaxDescriptionRunes)
	f.Add("description", msg)
	if err := f.Err(); err != nil {
		return nil, err
	}
	limit := s.d.Limits.For(caller.Tier)
	if limit > 0 && caller.WishlistCount >= limit {
		// The record read with the request says so already: no write.
		return nil, limitReached(caller.Tier, limit, caller.WishlistCount)
	}
	now := s.d.Now().UTC()
	w := &Wishlist{
		ID: ids.New(), UserID: caller.ID, Name: name, Description: description, IsPublic: in.IsPublic,
		CreatedAt: now, UpdatedAt: now,
	}
	err := s.d.Store.CreateWishlist(ctx, w, limit)
	if errors.Is(err, ErrLimitReached) {
		// A concurrent create took the last place.
		return nil, limitReached(caller.Tier, limit, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("create wishlist of %s: %w", caller.ID, err)
	}
	return w, nil
}

// ListOwned returns a page of callerID's wishlists, private ones
// included, oldest first. Errors: page.ErrInvalidCursor.
func (s *Service) ListOwned(ctx context.Context, callerID string, c page.Cursor) (page.Page[*Wishlist], error) {
	p, err := s.d.Store.ListUserWishlists(ctx, callerID, c)
	if err != nil {
		return page.Page[*Wishlist]{}, fmt.Errorf("wishlists of %s: %w", callerID, err)
	}
	return p, nil
}

// ListByUser returns a page of the public wishlists of the account named
// username, oldest first. Errors: users.ErrNotFound,
// page.ErrInvalidCursor.
func (s *Service) ListByUser(ctx context.Context, username string, c page.Cursor) (page.Page[*Wishlist], error) {
	return posts.UserPage(ctx, s.d.Users, username, func(ctx context.Context, userID string) (page.Page[*Wishlist], error) {
		return s.d.Store.ListPublicWishlists(ctx, userID, c)
	})
}

// Get returns a wishlist's single view: with its owner and its items
// with their books. A private wishlist is shown to its owner only:
// ErrSignInRequired without a viewer (viewer.ID ""), ErrPrivate to anyone
// else. The owner viewing their own is not read again (posts.Known).
// Errors: ErrNotFound (also for an id that is not a UUID).
func (s *Service) Get(ctx context.Context, viewer posts.Known, id string) (*View, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	// The wishlist and its items side by side: a refused view has read a
	// little for nothing, an allowed one (the common case) saves a round
	// trip.
	var (
		w     *Wishlist
		items []*Item
		g     errgroup.Group
	)
	g.Go(func() (err error) { w, err = s.d.Store.GetWishlist(ctx, id); return err })
	g.Go(func() (err error) { items, err = s.d.Store.ListItems(ctx, id, s.d.Limits.MaxItems()); return err })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("get wishlist %s: %w", id, err)
	}
	if err := visible(w, viewer.ID); err != nil {
		return nil, err
	}
	bookIDs := make([]string, len(items))
	for i, it := range items {
		bookIDs[i] = it.BookID
	}
	us, bs, err := viewer.Skip(s.d.Briefs).GetUsersAndBooks(ctx, []string{w.UserID}, bookIDs)
	if err != nil {
		return nil, fmt.Errorf("get wishlist %s: %w", id, err)
	}
	us = viewer.Add(us, w.UserID)
	sortItems(items)
	v := &View{Wishlist: w, Owner: us[w.UserID], Items: make([]ItemView, len(items))}
	for i, it := range items {
		v.Items[i] = ItemView{Item: it, Book: bs[it.BookID]}
	}
	return v, nil
}

// visible says whether viewerID may see w.
func visible(w *Wishlist, viewerID string) error {
	switch {
	case w.IsPublic || w.UserID == viewerID:
		return nil
	case viewerID == "":
		return ErrSignInRequired
	}
	return ErrPrivate
}

// sortItems orders items as the view shows them: priority 1 first, then
// the oldest addition, then the id, so the order is total.
func sortItems(items []*Item) {
	slices.SortFunc(items, func(a, b *Item) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), a.AddedAt.Compare(b.AddedAt), cmp.Compare(a.ID, b.ID))
	})
}

// Update changes a wishlist of callerID's. A change that names no field
// answers the wishlist as it is. Errors: ValidationError, ErrNotFound,
// ErrNotOwner.
func (s *Service) Update(ctx context.Context, callerID, id string, ch UpdateWishlist) (*Wishlist, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	var f apperr.Fields
	text.OptionalNameAndDescription(&ch.Name, &ch.Description, MaxNameRunes, MaxDescriptionRunes, f.Add)
	if err := f.Err(); err != nil {
		return nil, err
	}
	if ch.Name == nil && ch.Description == nil && ch.IsPublic == nil {
		return s.owned(ctx, callerID, id)
	}
	w, err := s.d.Store.UpdateWishlist(ctx, callerID, id, ch, s.d.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("update wishlist %s: %w", id, err)
	}
	return w, nil
}

// owned reads a wishlist callerID owns. Errors: ErrNotFound, ErrNotOwner.
func (s *Service) owned(ctx context.Context, callerID, id string) (*Wishlist, error) {
	w, err := s.d.Store.GetWishlist(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("wishlist %s: %w", id, err)
	}
	if w.UserID != callerID {
		return nil, ErrNotOwner
	}
	return w, nil
}

// Delete removes a wishlist of callerID's with all its items. The
// wishlist and the owner's count change together; the items go
// afterwards, so a failure in between leaves only items of a wishlist
// that no longer exists, which nothing shows or counts, and a retried
// DELETE (404 by then) removes them. Errors: ErrNotFound, ErrNotOwner.
func (s *Service) Delete(ctx context.Context, callerID, id string) error {
	id, ok := ids.Parse(id)
	if !ok {
		return ErrNotFound
	}
	return optimistic.Delete[*Wishlist]{
		What: "wishlist", Children: "items",
		Get: s.d.Store.GetWishlist, NotFound: ErrNotFound,
		Allow: func(w *Wishlist) error {
			if w.UserID != callerID {
				return ErrNotOwner
			}
			return nil
		},
		Remove: s.d.Store.DeleteWishlist,
		Purge:  s.d.Store.DeleteWishlistItems,
	}.Run(ctx, id)
}

// CreateItem puts a book on a wishlist of caller's and returns the item
// with its book; the caller's wish for the book counts at their home
// store. Errors: ValidationError (fields, ErrAlreadyListed, a full
// wishlist), ErrNotFound, ErrNotOwner, books.ErrNotFound.
func (s *Service) CreateItem(ctx context.Context, caller *users.User, wishlistID string, in NewItem) (*ItemView, error) {
	callerID := caller.ID
	wishlistID, ok := ids.Parse(wishlistID)
	if !ok {
		return nil, ErrNotFound
	}
	var f apperr.Fields
	bookID, msg := ids.Required(in.BookID)
	f.Add("bookId", msg)
	priority := DefaultPriority
	if in.Priority != nil {
		priority = *in.Priority
		f.Add("priority", checkPriority(priority))
	}
	notes, msg := text.Prose(in.Notes, MaxNotesRunes)
	f.Add("notes", msg)
	if err := f.Err(); err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	it := &Item{
		ID: bookID, WishlistID: wishlistID, UserID: callerID, BookID: bookID,
		Priority: priority, Notes: notes, AddedAt: now, UpdatedAt: now,
	}
	// The book is read beside the write: the transaction's condition is
	// the existence check, the read supplies the answer's BookBrief.
	var (
		book    *books.Book
		bookErr error
		g       errgroup.Group
	)
	g.Go(func() error { book, bookErr = s.d.Books.GetBook(ctx, bookID); return nil })
	g.Go(func() error { return s.d.Store.AddItem(ctx, it, s.d.Limits.MaxItems(), caller.HomeStoreID) })
	err := g.Wait()
	if errors.Is(err, ErrFull) {
		return nil, full(s.d.Limits.MaxItems())
	}
	if err != nil {
		return nil, fmt.Errorf("add book %s to wishlist %s: %w", bookID, wishlistID, err)
	}
	if bookErr != nil {
		// The item is stored, and its book exists (the transaction
		// required it): read it again rather than fail the answer.
		if book, bookErr = s.d.Books.GetBook(ctx, bookID); bookErr != nil {
			book = nil
		}
	}
	return &ItemView{Item: it, Book: book}, nil
}

// UpdateItem changes the priority or notes of an item on a wishlist of
// callerID's. A change that names no field answers the item as it is.
// Errors: ValidationError, ErrNotFound, ErrNotOwner, ErrItemNotFound.
func (s *Service) UpdateItem(ctx context.Context, callerID, wishlistID, itemID string, ch UpdateItem) (*Item, error) {
	wishlistID, ok := ids.Parse(wishlistID)
	if !ok {
		return nil, ErrNotFound
	}
	itemID, ok = ids.Parse(itemID)
	if !ok {
		return nil, ErrItemNotFound
	}
	var f apperr.Fields
	if ch.Priority != nil {
		f.Add("priority", checkPriority(*ch.Priority))
	}
	if ch.Notes != nil {
		n, msg := text.Prose(*ch.Notes, MaxNotesRunes)
		f.Add("notes", msg)
		ch.Notes = &n
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	it, err := s.d.Store.UpdateItem(ctx, callerID, wishlistID, itemID, ch, s.d.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("update item %s of wishlist %s: %w", itemID, wishlistID, err)
	}
	return it, nil
}

// DeleteItem takes a book off a wishlist of callerID's. Errors:
// ErrNotFound, ErrNotOwner, ErrItemNotFound.
func (s *Service) DeleteItem(ctx context.Context, callerID, wishlistID, itemID string) error {
	wishlistID, ok := ids.Parse(wishlistID)
	if !ok {
		return ErrNotFound
	}
	itemID, ok = ids.Parse(itemID)
	if !ok {
		return ErrItemNotFound
	}
	if err := s.d.Store.DeleteItem(ctx, callerID, wishlistID, itemID, s.d.Now().UTC()); err != nil {
		return fmt.Errorf("delete item %s of wishlist %s: %w", itemID, wishlistID, err)
	}
	return nil
}
