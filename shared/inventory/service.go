package inventory

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/text"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// BookReader reads the book of an item.
type BookReader interface {
	// GetBook reads a book. Errors: books.ErrNotFound.
	GetBook(ctx context.Context, id string) (*books.Book, error)
}

// BriefReader reads the books of a page.
type BriefReader interface {
	// GetUsersAndBooks reads accounts and books by id; missing ones are
	// absent (dynamo.Briefs).
	GetUsersAndBooks(ctx context.Context, userIDs, bookIDs []string) (map[string]*users.User, map[string]*books.Book, error)
}

// StoreReader reads the stores an availability lists.
type StoreReader interface {
	// GetStores reads stores by id; missing ones are absent.
	GetStores(ctx context.Context, ids []string) (map[string]*stores.Store, error)
}

// Deps are the service's storage and clock.
type Deps struct {
	Store  Storer
	Books  BookReader
	Briefs BriefReader
	Stores StoreReader
	Now    func() time.Time
}

// Service is the stock domain behind the inventory endpoints. Who may
// call it for a store is the router's business (the routes' roles): it
// takes the store's id as admitted.
type Service struct{ d Deps }

// NewService builds the service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// View is an item with its book (nil when the catalog record is gone).
type View struct {
	*Item
	Book *books.Book
}

// NewItem is an item to create (POST /inventory).
type NewItem struct {
	StoreID, BookID string
	Quantity        int
	PriceCents      int
	CostCents       *int
	Condition       Condition
	Location, Notes string
}

// Create creates storeID's item for a book, its first history entry and
// its event. Errors: a 400 naming each bad field, books.ErrNotFound,
// ErrExists, stores.ErrNotFound.
func (s *Service) Create(ctx context.Context, userID string, in NewItem) (*View, error) {
	st := Stock{BookID: in.BookID, Quantity: in.Quantity, PriceCents: in.PriceCents, CostCents: in.CostCents,
		Condition: in.Condition, Location: &in.Location, Notes: &in.Notes}
	if err := st.Validate(); err != nil {
		return nil, err
	}
	b, err := s.d.Books.GetBook(ctx, in.BookID)
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	it := st.Apply(Item{ID: ItemID(in.StoreID, b.ID), StoreID: in.StoreID, BookID: b.ID, CreatedAt: now, UpdatedAt: now})
	if err := s.d.Store.Create(ctx, &it, b, Cause{Kind: CauseCreate, UserID: userID, Reason: "created"}); err != nil {
		return nil, err
	}
	return &View{Item: &it, Book: b}, nil
}

// Get reads storeID's item id with its book. Errors: ErrNotFound.
func (s *Service) Get(ctx context.Context, storeID, id string) (*View, error) {
	it, err := s.d.Store.Get(ctx, storeID, id)
	if err != nil {
		return nil, err
	}
	b, err := s.d.Books.GetBook(ctx, it.BookID)
	if err != nil && !errors.Is(err, books.ErrNotFound) {
		return nil, err
	}
	return &View{Item: it, Book: b}, nil
}

// Update changes an item's price, cost, condition, location or notes.
// Errors: a 400 naming each bad field, ErrNotFound.
func (s *Service) Update(ctx context.Context, storeID, id string, u Update) (*Item, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	return s.d.Store.Update(ctx, storeID, id, u)
}

// Adjust adds delta (not 0) to an item's quantity, never below zero; the
// reason is kept in its history. Errors: a 400 for a bad delta or
// reason, ErrInsufficient, ErrNotFound.
func (s *Service) Adjust(ctx context.Context, userID, storeID, id string, delta int, reason string) (*Item, Change, error) {
	var f apperr.Fields
	if delta == 0 || delta < -MaxQuantity || delta > MaxQuantity {
		f.Add("adjustment", "must be a non-zero integer from -1000000 to 1000000")
	}
	reason, msg := text.Name(reason, MaxReason)
	f.Add("reason", msg)
	if err := f.Err(); err != nil {
		return nil, Change{}, err
	}
	return s.d.Store.Adjust(ctx, storeID, id, delta, Cause{Kind: CauseAdjust, UserID: userID, Reason: reason})
}

// Delete removes an item (its history stays). Errors: ErrNotFound.
func (s *Service) Delete(ctx context.Context, userID, storeID, id string) error {
	return s.d.Store.Delete(ctx, storeID, id, Cause{Kind: CauseDelete, UserID: userID, Reason: "deleted"})
}

// List reads a page of a store's items with their books.
func (s *Service) List(ctx context.Context, storeID string, q ListQuery) ([]View, ListResult, error) {
	res, err := s.d.Store.List(ctx, storeID, q)
	if err != nil {
		return nil, res, err
	}
	ids := make([]string, len(res.Items))
	for i, it := range res.Items {
		ids[i] = it.BookID
	}
	_, bs, err := s.d.Briefs.GetUsersAndBooks(ctx, nil, ids)
	if err != nil {
		return nil, res, err
	}
	out := make([]View, len(res.Items))
	for i, it := range res.Items {
		out[i] = View{Item: it, Book: bs[it.BookID]}
	}
	return out, res, nil
}

// History reads a page of an item's changes, newest first, beside a
// read of the item (an unknown item is ErrNotFound, not an empty page).
func (s *Service) History(ctx context.Context, storeID, id string, c page.Cursor) (page.Page[Change], error) {
	var (
		p page.Page[Change]
		g errgroup.Group
	)
	g.Go(func() error { _, err := s.d.Store.Get(ctx, storeID, id); return err })
	g.Go(func() (err error) { p, err = s.d.Store.History(ctx, storeID, id, c); return err })
	return p, g.Wait()
}

// MaxAvailability bounds the stores an availability reads (the Query of
// the book's stock): a book in stock at more stores lists the first by
// store id.
const MaxAvailability = 500

// Offer is a store's stock of a book as the availability lists it.
type Offer struct {
	Item  *Item
	Store *stores.Store
	// Distance is in miles from the caller's position, nil without one.
	Distance *float64
}

// Availability lists the stores with the book in stock: with a position,
// those within radius miles of it (stores without a position left
// out), nearest first; without, every one, by name. One Query of the
// book's stock (beside a read of the book), then one read of the stores
// found. Errors: books.ErrNotFound.
func (s *Service) Availability(ctx context.Context, bookID string, at *geo.Point, radius float64) ([]Offer, error) {
	var (
		items []*Item
		g     errgroup.Group
	)
	g.Go(func() error { _, err := s.d.Books.GetBook(ctx, bookID); return err })
	g.Go(func() (err error) { items, err = s.d.Store.InStock(ctx, bookID, MaxAvailability); return err })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.StoreID
	}
	sts, err := s.d.Stores.GetStores(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Offer, 0, len(items))
	for _, it := range items {
		st := sts[it.StoreID]
		if st == nil {
			continue // deleted since: its stock goes with it
		}
		o := Offer{Item: it, Store: st}
		if at != nil {
			if st.Location == nil {
				continue
			}
			d := geo.Miles(*at, *st.Location)
			if d > radius {
				continue
			}
			o.Distance = &d
		}
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b Offer) int {
		if a.Distance != nil && b.Distance != nil {
			if c := cmp.Compare(*a.Distance, *b.Distance); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(books.Fold(a.Store.Name), books.Fold(b.Store.Name)); c != 0 {
			return c
		}
		return cmp.Compare(a.Store.ID, b.Store.ID)
	})
	return out, nil
}
