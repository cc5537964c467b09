package clubs

import (
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
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Storer is the storage of clubs, memberships and club books: the clubs
// here, memberships and the reading list in the interfaces it embeds
// (members.go, books.go), as the service's methods are split.
// Implementations return the errors named on each method wrapped with
// context, never (nil, nil). Every change of a membership or a club book
// changes the club's memberCount or bookCount in the same transaction.
type Storer interface {
	// CreateClub stores the club, its host's membership and its
	// directory entries (the lists GET /clubs reads, with their counts)
	// in one transaction. Errors: storehost.ErrStoreNotFound (its store's
	// deletion has begun).
	CreateClub(ctx context.Context, c *Club, host *Member) error
	// GetClub reads a club, strongly consistent. Errors: ErrNotFound.
	GetClub(ctx context.Context, id string) (*Club, error)
	// TakenDownClub reads a club an operator took down, as it was, and
	// the takedown. Errors: ErrNotFound (no club of the id was taken
	// down).
	TakenDownClub(ctx context.Context, id string) (*Club, *posts.TakenDown, error)
	// GetClubs reads clubs by id; unknown ids are absent.
	GetClubs(ctx context.Context, ids []string) (map[string]*Club, error)
	// EditClub applies an edit of the name or description (never the
	// visibility) if hostID hosts the club, and returns the club as
	// stored afterwards. Errors: ErrNotFound, ErrNotHost.
	EditClub(ctx context.Context, id, hostID string, e UpdateClub, now time.Time) (*Club, error)
	// UpdateClub applies e to prev, which the caller read, if the club is
	// still hosted by prev.HostID, for the same store, and as public or
	// private as it was read; a change of visibility moves its directory entries in the
	// same transaction. It returns the club as stored afterwards.
	// Errors: ErrNotFound, ErrChanged (read again and retry).
	UpdateClub(ctx context.Context, prev *Club, e UpdateClub, now time.Time) (*Club, error)
	// DeleteClub removes c and its directory entries in one transaction,
	// if it is still as public or private, and hosted for the same store,
	// as it was read. Its
	// memberships and books stay until PurgeClub. Errors: ErrNotFound,
	// ErrChanged.
	DeleteClub(ctx context.Context, c *Club) error
	// PurgeClub removes every membership and club book of a club that no
	// longer exists, in bounded batches; nothing left is not an error.
	PurgeClub(ctx context.Context, id string) error
	// ListClubs reads an offset page of the directory of the clubs f
	// selects, newest first, and the exact number of them.
	ListClubs(ctx context.Context, f Filter, o page.Offset) ([]Ref, int, error)
	// PageClubs reads a cursor page of the same directories, newest
	// first (a store's list). Errors: page.ErrInvalidCursor.
	PageClubs(ctx context.Context, f Filter, c page.Cursor) (page.Page[Ref], error)
	// GetListed reads the clubs of a directory page, in its order (a club
	// deleted since is left out), and their hosts' accounts but skip's
	// (the caller's, which the request has: posts.Known; "" for none).
	GetListed(ctx context.Context, refs []Ref, skip string) ([]*Club, map[string]*users.User, error)

	MemberStorer
	BookStorer
}

// ErrChanged is a club that changed between its read and a write
// conditional on what was read; the service reads again and retries.
var ErrChanged = errors.New("club changed since it was read")

// Ref is a club as its directory entries list it: with the ids of what
// a page reads beside the club, its host and its store.
type Ref struct {
	ID      string
	HostID  string
	StoreID string // "" when not store-hosted
}

// Deps are the service's collaborators.
type Deps struct {
	Store  Storer
	Users  posts.Users  // a list's owner by username
	Books  posts.Books  // the book of a new club book, for its answer
	Briefs posts.Reader // hosts, members and books shown beside a club
	Stores storehost.Directory
	// CreatorTiers are the tiers that may create clubs (configuration).
	CreatorTiers []users.Tier
	Now          func() time.Time
}

// Service implements clubs.
type Service struct {
	d Deps
}

// NewService returns the clubs service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Stores == nil {
		d.Stores = storehost.None{}
	}
	return &Service{d: d}
}

// View is a club as its single view shows it.
type View struct {
	Club   *Club
	Host   *users.User      // nil when the account is gone
	Store  *storehost.Brief // nil when not store-hosted (or unknown)
	Books  []BookView       // the reading list, in the order books were added
	Member *Member          // the viewer's membership, nil when none
	// TakenDown is set only on a club an operator took down, as its host
	// alone still sees it (its members and reading list were removed).
	TakenDown *posts.TakenDown
}

// Listed is a club as lists show it.
type Listed struct {
	Club  *Club
	Host  *users.User
	Store *storehost.Brief
}

// Create makes a club hosted by caller, who becomes its host and first
// member. Errors: ValidationError, ErrTier, storehost.ErrStoreNotFound,
// storehost.ErrNotStoreStaff.
func (s *Service) Create(ctx context.Context, caller *users.User, in NewClub) (*View, error) {
	if !slices.Contains(s.d.CreatorTiers, caller.Tier) {
		return nil, ErrTier
	}
	in, f := checkNew(in)
	storeID, ok := ids.Optional(in.StoreID)
	if !ok {
		f.Add("storeId", "must be a UUID or null")
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	var (
		store *storehost.Brief
		err   error
	)
	if storeID != "" {
		if store, err = s.hostStore(ctx, storeID, caller.ID); err != nil {
			return nil, err
		}
	}
	now := s.d.Now().UTC()
	c := &Club{
		ID: ids.New(), Name: in.Name, Description: in.Description, IsPublic: in.IsPublic,
		HostID: caller.ID, StoreID: storeID, MemberCount: 1, CreatedAt: now, UpdatedAt: now,
	}
	host := &Member{ClubID: c.ID, UserID: caller.ID, Role: RoleHost, JoinedAt: now, UpdatedAt: now}
	if err := s.d.Store.CreateClub(ctx, c, host); err != nil {
		return nil, fmt.Errorf("create club: %w", err)
	}
	return &View{Club: c, Host: caller, Store: store, Books: []BookView{}, Member: host}, nil
}

// hostStore checks that userID may host for storeID and returns its
// brief.
func (s *Service) hostStore(ctx context.Context, storeID, userID string) (*storehost.Brief, error) {
	b, err := s.d.Stores.Host(ctx, storeID, userID)
	if err != nil {
		return nil, fmt.Errorf("host for store %s: %w", storeID, err)
	}
	return &b, nil
}

// Get returns the single view of a club for viewer (ID "" when
// anonymous): the club, its reading list and the viewer's membership are
// read side by side, then the host and the books (a host viewing their
// club is not read again: posts.Known). Errors: ErrNotFound (also for
// an id that is not a UUID), ErrSignInRequired, ErrPrivate.
func (s *Service) Get(ctx context.Context, viewer posts.Known, id string) (*View, error) {
	viewerID := viewer.ID
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	var (
		c     *Club
		m     *Member
		entry []*Book
		g     errgroup.Group
	)
	g.Go(func() (err error) { c, err = s.d.Store.GetClub(ctx, id); return err })
	g.Go(func() (err error) { m, err = s.member(ctx, id, viewerID); return err })
	g.Go(func() (err error) { entry, err = s.d.Store.ListBooks(ctx, id); return err })
	if err := g.Wait(); errors.Is(err, ErrNotFound) && viewerID != "" {
		return s.takenDown(ctx, viewer, id)
	} else if err != nil {
		return nil, fmt.Errorf("get club %s: %w", id, err)
	}
	if err := CanRead(c, m, viewerID); err != nil {
		return nil, err
	}
	sortBooks(entry)
	bookIDs := make([]string, len(entry))
	for i, b := range entry {
		bookIDs[i] = b.BookID
	}
	var (
		us     map[string]*users.User
		bs     map[string]*books.Book
		stores map[string]storehost.Brief
	)
	g.Go(func() (err error) {
		us, bs, err = viewer.Skip(s.d.Briefs).GetUsersAndBooks(ctx, []string{c.HostID}, bookIDs)
		return err
	})
	g.Go(func() (err error) { stores, err = s.storeBriefs(ctx, c.StoreID); return err })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("get club %s: %w", id, err)
	}
	us = viewer.Add(us, c.HostID)
	v := &View{Club: c, Host: us[c.HostID], Store: briefOf(stores, c.StoreID), Member: m, Books: make([]BookView, len(entry))}
	for i, b := range entry {
		v.Books[i] = BookView{Entry: b, Book: bs[b.BookID]}
	}
	return v, nil
}

// storeBriefs reads the stores of store-hosted clubs ("" for a club
// hosted by a reader; no call when none is).
func (s *Service) storeBriefs(ctx context.Context, storeIDs ...string) (map[string]storehost.Brief, error) {
	var ids []string
	for _, id := range storeIDs {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return s.d.Stores.Briefs(ctx, ids)
}

func briefOf(m map[string]storehost.Brief, id string) *storehost.Brief {
	if b, ok := m[id]; ok {
		return &b
	}
	return nil
}

// List returns an offset page of the clubs f selects, newest first, and
// the exact number of them. Private clubs are listed with the fields of a
// listing (so that someone can ask to be added); what is inside them is
// for members only. The directory page names each club's host and
// store, so the clubs with their hosts and the stores are read side by
// side; the viewer's own account, when they host one, is not read again
// (posts.Known). Errors: ValidationError (a store id that is not a
// UUID).
func (s *Service) List(ctx context.Context, viewer posts.Known, f Filter, o page.Offset) ([]Listed, int, error) {
	if f.StoreID != "" {
		id, ok := ids.Parse(f.StoreID)
		if !ok {
			return nil, 0, apperr.Validation("storeId must be a UUID", map[string]string{"storeId": "must be a UUID"})
		}
		f.StoreID = id
	}
	refs, total, err := s.d.Store.ListClubs(ctx, f, o)
	if err != nil {
		return nil, 0, fmt.Errorf("list clubs: %w", err)
	}
	storeIDs := make([]string, len(refs))
	for i, r := range refs {
		storeIDs[i] = r.StoreID
	}
	var (
		cs     []*Club
		hosts  map[string]*users.User
		stores map[string]storehost.Brief
		g      errgroup.Group
	)
	skip := ""
	if viewer.User != nil {
		skip = viewer.ID
	}
	g.Go(func() (err error) { cs, hosts, err = s.d.Store.GetListed(ctx, refs, skip); return err })
	g.Go(func() (err error) { stores, err = s.storeBriefs(ctx, storeIDs...); return err })
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("list clubs: %w", err)
	}
	hostIDs := make([]string, len(cs))
	for i, c := range cs {
		hostIDs[i] = c.HostID
	}
	hosts = viewer.Add(hosts, hostIDs...)
	out := make([]Listed, len(cs))
	for i, c := range cs {
		out[i] = Listed{Club: c, Host: hosts[c.HostID], Store: briefOf(stores, c.StoreID)}
	}
	return out, total, nil
}

// ListByStore returns a page of the clubs hosted for the store with slug,
// newest first, as GET /clubs lists them (private clubs included, with
// the fields of a listing; public selects one kind): once the slug is
// resolved, the page is read beside the store's brief, which says
// whether the store is live. Errors: storehost.ErrStoreNotFound,
// page.ErrInvalidCursor.
func (s *Service) ListByStore(ctx context.Context, slug string, public *bool, c page.Cursor) (page.Page[Listed], error) {
	storeID, err := s.d.Stores.StoreID(ctx, slug)
	if err != nil {
		return page.Page[Listed]{}, err
	}
	var (
		p      page.Page[*Club]
		hosts  map[string]*users.User
		briefs map[string]storehost.Brief
		g      errgroup.Group
	)
	g.Go(func() error {
		refs, err := s.d.Store.PageClubs(ctx, Filter{Scope: ScopeStore, StoreID: storeID, Public: public}, c)
		if err != nil {
			return err
		}
		p.Next = refs.Next
		p.Items, hosts, err = s.d.Store.GetListed(ctx, refs.Items, "")
		return err
	})
	g.Go(func() (err error) { briefs, err = s.d.Stores.Briefs(ctx, []string{storeID}); return err })
	if err := g.Wait(); err != nil {
		return page.Page[Listed]{}, fmt.Errorf("clubs of store %s: %w", storeID, err)
	}
	store := briefOf(briefs, storeID)
	if store == nil {
		// Its deletion has begun: it reads as gone.
		return page.Page[Listed]{}, storehost.ErrStoreNotFound
	}
	return page.Map(p, func(c *Club) Listed { return Listed{Club: c, Host: hosts[c.HostID], Store: store} }), nil
}

// Update changes a club's name, description or visibility on behalf of
// callerID, its host, and returns the club as stored. Errors:
// ValidationError, ErrNotFound, ErrNotHost, apperr.ErrContention.
func (s *Service) Update(ctx context.Context, callerID, id string, e UpdateClub) (*Club, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	e, err := checkEdit(e)
	if err != nil {
		return nil, err
	}
	if e.IsPublic == nil {
		// No directory moves: one conditional write, no read first.
		c, err := s.d.Store.EditClub(ctx, id, callerID, e, s.d.Now().UTC())
		if err != nil {
			return nil, fmt.Errorf("update club %s: %w", id, err)
		}
		return c, nil
	}
	// A visibility change moves the club's directory entries, which are
	// computed from the club as read: read, then write conditional on it.
	var c *Club
	err = optimistic.Retry(maxAttempts, func(int) error {
		prev, err := s.d.Store.GetClub(ctx, id)
		if err != nil {
			return err
		}
		if prev.HostID != callerID {
			return ErrNotHost
		}
		c, err = s.d.Store.UpdateClub(ctx, prev, e, s.d.Now().UTC())
		return err
	}, ErrChanged)
	switch {
	case errors.Is(err, ErrNotHost):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("update club %s: %w", id, err)
	}
	return c, nil
}

// takenDown answers a club that is not there: to its host, the club an
// operator took down, with the takedown and without members or books
// (they were removed with it); to anyone else, and for a club never
// taken down, ErrNotFound. It is read only after a signed-in viewer
// found no club, so a club that is there costs nothing more; the host
// is the viewer, whose account the request has (posts.Known).
func (s *Service) takenDown(ctx context.Context, viewer posts.Known, id string) (*View, error) {
	c, td, err := s.d.Store.TakenDownClub(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("get club %s: %w", id, err)
	}
	if c.HostID != viewer.ID {
		return nil, ErrNotFound
	}
	us, _, err := viewer.Skip(s.d.Briefs).GetUsersAndBooks(ctx, []string{c.HostID}, nil)
	if err != nil {
		return nil, fmt.Errorf("get club %s: %w", id, err)
	}
	us = viewer.Add(us, c.HostID)
	stores, err := s.storeBriefs(ctx, c.StoreID)
	if err != nil {
		return nil, fmt.Errorf("get club %s: %w", id, err)
	}
	return &View{Club: c, Host: us[c.HostID], Store: briefOf(stores, c.StoreID), Books: []BookView{}, TakenDown: td}, nil
}

// maxAttempts bounds the reads and writes of a change that lost to a
// concurrent one (a visibility flip between its read and its write).
const maxAttempts = 3

// Delete removes a club on behalf of callerID, its host: the club and its
// directory entries in one transaction, then its memberships and reading
// list in bounded batches. A failure between the two steps leaves
// records of a club that no longer exists, which no endpoint shows and a
// repeated DELETE (404 by then) removes. Its lines stay (decisions.md).
// Errors: ErrNotFound, ErrNotHost, apperr.ErrContention.
func (s *Service) Delete(ctx context.Context, callerID, id string) error {
	id, ok := ids.Parse(id)
	if !ok {
		return ErrNotFound
	}
	return optimistic.Delete[*Club]{
		What: "club", Children: "members and books",
		Get: s.d.Store.GetClub, NotFound: ErrNotFound,
		Allow: func(c *Club) error {
			if c.HostID != callerID {
				return ErrNotHost
			}
			return nil
		},
		Remove: s.d.Store.DeleteClub, Changed: ErrChanged, Attempts: maxAttempts,
		Purge: s.d.Store.PurgeClub,
	}.Run(ctx, id)
}
