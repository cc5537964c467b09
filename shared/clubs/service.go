package clubs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dates"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/text"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Storer is the storage of clubs, memberships and club books.
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
	// GetClubs reads clubs by id; unknown ids are absent.
	GetClubs(ctx context.Context, ids []string) (map[string]*Club, error)
	// EditClub applies an edit of the name or description (never the
	// visibility) if hostID hosts the club, and returns the club as
	// stored afterwards. Errors: ErrNotFound, ErrNotHost.
	EditClub(ctx context.Context, id, hostID string, e Edit, now time.Time) (*Club, error)
	// UpdateClub applies e to prev, which the caller read, if the club is
	// still hosted by prev.HostID, for the same store, and as public or
	// private as it was read; a change of visibility moves its directory entries in the
	// same transaction. It returns the club as stored afterwards.
	// Errors: ErrNotFound, ErrChanged (read again and retry).
	UpdateClub(ctx context.Context, prev *Club, e Edit, now time.Time) (*Club, error)
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
	// deleted since is left out), and their hosts' accounts.
	GetListed(ctx context.Context, refs []Ref) ([]*Club, map[string]*users.User, error)

	// GetMember reads userID's membership of a club, strongly
	// consistent. Errors: ErrMemberNotFound.
	GetMember(ctx context.Context, clubID, userID string) (*Member, error)
	// Join adds m to a public club. Errors: ErrNotFound, ErrPrivateJoin,
	// ErrAlreadyMember.
	Join(ctx context.Context, m *Member) error
	// AddMember adds m to a club on behalf of byUserID, its host or a
	// moderator. Errors: ErrNotFound, ErrNotManager, users.ErrNotFound,
	// ErrUserAlreadyMember.
	AddMember(ctx context.Context, byUserID string, m *Member) error
	// Leave removes userID's membership. Errors: ErrNotFound,
	// ErrNotMember, ErrHostCannotLeave.
	Leave(ctx context.Context, clubID, userID string) error
	// SetRole changes userID's role on behalf of byUserID, the host, and
	// returns the membership after. Errors: ErrNotFound, ErrNotHost,
	// ErrMemberNotFound, ErrHostRole.
	SetRole(ctx context.Context, clubID, byUserID, userID string, role Role, now time.Time) (*Member, error)
	// ListMembers reads a page of a club's members, oldest first (the
	// host first). Errors: page.ErrInvalidCursor.
	ListMembers(ctx context.Context, clubID string, c page.Cursor) (page.Page[*Member], error)
	// ListUserClubs reads a page of userID's memberships, the most
	// recently joined first. Errors: page.ErrInvalidCursor.
	ListUserClubs(ctx context.Context, userID string, c page.Cursor) (page.Page[*Member], error)

	// AddBook puts b on a club's reading list on behalf of byUserID.
	// Errors: ErrNotFound, ErrNotManager, books.ErrNotFound,
	// ErrBookOnList, ErrListFull.
	AddBook(ctx context.Context, byUserID string, b *Book) error
	// UpdateBook applies e to a club book on behalf of byUserID and
	// returns it as stored afterwards. A date set alone must keep the
	// stored other date in order. Errors: ErrNotFound, ErrNotManager,
	// ErrBookNotFound, ErrDateOrder.
	UpdateBook(ctx context.Context, byUserID, clubID, bookID string, e BookEdit, now time.Time) (*Book, error)
	// RemoveBook takes a book off the reading list on behalf of byUserID.
	// Errors: ErrNotFound, ErrNotManager, ErrBookNotFound.
	RemoveBook(ctx context.Context, byUserID, clubID, bookID string) error
	// ListBooks reads a club's whole reading list (MaxBooks at most).
	ListBooks(ctx context.Context, clubID string) ([]*Book, error)
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
}

// BookView is a club book with its book (nil when the record is missing).
type BookView struct {
	Entry *Book
	Book  *books.Book
}

// Listed is a club as lists show it.
type Listed struct {
	Club  *Club
	Host  *users.User
	Store *storehost.Brief
}

// MemberView is a membership with its account (nil when gone).
type MemberView struct {
	*Member
	User *users.User
}

// Membership is a club of a reader's list, with the reader's membership.
type Membership struct {
	Club   *Club
	Member *Member
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

// Get returns the single view of a club for viewerID ("" when
// anonymous): the club, its reading list and the viewer's membership are
// read side by side, then the host and the books. Errors: ErrNotFound
// (also for an id that is not a UUID), ErrSignInRequired, ErrPrivate.
func (s *Service) Get(ctx context.Context, viewerID, id string) (*View, error) {
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
	if err := g.Wait(); err != nil {
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
		us, bs, err = s.d.Briefs.GetUsersAndBooks(ctx, []string{c.HostID}, bookIDs)
		return err
	})
	g.Go(func() (err error) { stores, err = s.storeBriefs(ctx, c.StoreID); return err })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("get club %s: %w", id, err)
	}
	v := &View{Club: c, Host: us[c.HostID], Store: briefOf(stores, c.StoreID), Member: m, Books: make([]BookView, len(entry))}
	for i, b := range entry {
		v.Books[i] = BookView{Entry: b, Book: bs[b.BookID]}
	}
	return v, nil
}

// member reads viewerID's membership of a club: nil for an anonymous
// viewer or a non-member.
func (s *Service) member(ctx context.Context, clubID, viewerID string) (*Member, error) {
	if viewerID == "" {
		return nil, nil
	}
	m, err := s.d.Store.GetMember(ctx, clubID, viewerID)
	if errors.Is(err, ErrMemberNotFound) {
		return nil, nil
	}
	return m, err
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
// side. Errors: ValidationError (a store id that is not a UUID).
func (s *Service) List(ctx context.Context, f Filter, o page.Offset) ([]Listed, int, error) {
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
	g.Go(func() (err error) { cs, hosts, err = s.d.Store.GetListed(ctx, refs); return err })
	g.Go(func() (err error) { stores, err = s.storeBriefs(ctx, storeIDs...); return err })
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("list clubs: %w", err)
	}
	out := make([]Listed, len(cs))
	for i, c := range cs {
		out[i] = Listed{Club: c, Host: hosts[c.HostID], Store: briefOf(stores, c.StoreID)}
	}
	return out, total, nil
}

// OfStore returns a page of the clubs hosted for the store with slug,
// newest first, as GET /clubs lists them (private clubs included, with
// the fields of a listing; public selects one kind): once the slug is
// resolved, the page is read beside the store's brief, which says
// whether the store is live. Errors: storehost.ErrStoreNotFound,
// page.ErrInvalidCursor.
func (s *Service) OfStore(ctx context.Context, slug string, public *bool, c page.Cursor) (page.Page[Listed], error) {
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
		p.Items, hosts, err = s.d.Store.GetListed(ctx, refs.Items)
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
func (s *Service) Update(ctx context.Context, callerID, id string, e Edit) (*Club, error) {
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
	for range maxAttempts {
		c, err := s.d.Store.GetClub(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("update club %s: %w", id, err)
		}
		if c.HostID != callerID {
			return nil, ErrNotHost
		}
		c, err = s.d.Store.UpdateClub(ctx, c, e, s.d.Now().UTC())
		if !errors.Is(err, ErrChanged) {
			if err != nil {
				return nil, fmt.Errorf("update club %s: %w", id, err)
			}
			return c, nil
		}
	}
	return nil, fmt.Errorf("update club %s: %w", id, apperr.ErrContention)
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
	for range maxAttempts {
		c, err := s.d.Store.GetClub(ctx, id)
		if errors.Is(err, ErrNotFound) {
			if err := s.d.Store.PurgeClub(ctx, id); err != nil {
				return fmt.Errorf("delete leftovers of club %s: %w", id, err)
			}
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("delete club %s: %w", id, err)
		}
		if c.HostID != callerID {
			return ErrNotHost
		}
		err = s.d.Store.DeleteClub(ctx, c)
		if errors.Is(err, ErrChanged) {
			continue
		}
		if err != nil {
			return fmt.Errorf("delete club %s: %w", id, err)
		}
		if err := s.d.Store.PurgeClub(ctx, id); err != nil {
			return fmt.Errorf("delete members and books of club %s: %w", id, err)
		}
		return nil
	}
	return fmt.Errorf("delete club %s: %w", id, apperr.ErrContention)
}

// AddBook puts a book on a club's reading list on behalf of callerID, its
// host or a moderator. The book is read beside the write for the answer;
// the write requires it to exist. Errors: ValidationError, ErrNotFound,
// ErrNotManager, books.ErrNotFound, ErrBookOnList, ErrListFull.
func (s *Service) AddBook(ctx context.Context, callerID, clubID string, in NewBook) (*BookView, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	var f apperr.Fields
	bookID, msg := ids.Required(in.BookID)
	f.Add("bookId", msg)
	if in.Status == "" {
		f.Add("status", "is required")
	}
	f.Add("status", checkStatus(in.Status))
	f.Add("startDate", checkDate(in.StartDate))
	f.Add("endDate", checkDate(in.EndDate))
	if f["startDate"] == "" && f["endDate"] == "" {
		f.Add("endDate", dates.CheckOrder(in.StartDate, in.EndDate))
	}
	notes, msg := text.Prose(in.Notes, MaxNotesRunes)
	f.Add("notes", msg)
	if err := f.Err(); err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	b := &Book{
		ClubID: clubID, BookID: bookID, Status: BookStatus(in.Status), StartDate: in.StartDate, EndDate: in.EndDate,
		Notes: notes, AddedAt: now, UpdatedAt: now,
	}
	var (
		book    *books.Book
		bookErr error
		g       errgroup.Group
	)
	g.Go(func() error { book, bookErr = s.d.Books.GetBook(ctx, bookID); return nil })
	g.Go(func() error { return s.d.Store.AddBook(ctx, callerID, b) })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("add book %s to club %s: %w", bookID, clubID, err)
	}
	if bookErr != nil {
		// Stored all the same (the write required the book): show it
		// without its brief rather than fail.
		book = nil
	}
	return &BookView{Entry: b, Book: book}, nil
}

// UpdateBook changes a club book's status, notes or dates on behalf of
// callerID, its host or a moderator. Errors: ValidationError,
// ErrNotFound, ErrNotManager, ErrBookNotFound, ErrDateOrder.
func (s *Service) UpdateBook(ctx context.Context, callerID, clubID, bookID string, e BookEdit) (*Book, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	if bookID, ok = ids.Parse(bookID); !ok {
		return nil, ErrBookNotFound
	}
	var f apperr.Fields
	if e.Status != nil {
		f.Add("status", checkStatus(*e.Status))
	}
	if e.Notes != nil {
		n, msg := text.Prose(*e.Notes, MaxNotesRunes)
		f.Add("notes", msg)
		e.Notes = &n
	}
	if e.SetStart {
		f.Add("startDate", checkDate(e.StartDate))
	}
	if e.SetEnd {
		f.Add("endDate", checkDate(e.EndDate))
	}
	if e.SetStart && e.SetEnd && f["startDate"] == "" && f["endDate"] == "" {
		f.Add("endDate", dates.CheckOrder(e.StartDate, e.EndDate))
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	b, err := s.d.Store.UpdateBook(ctx, callerID, clubID, bookID, e, s.d.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("update book %s of club %s: %w", bookID, clubID, err)
	}
	return b, nil
}

// RemoveBook takes a book off a club's reading list on behalf of
// callerID, its host or a moderator. Errors: ErrNotFound, ErrNotManager,
// ErrBookNotFound.
func (s *Service) RemoveBook(ctx context.Context, callerID, clubID, bookID string) error {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return ErrNotFound
	}
	if bookID, ok = ids.Parse(bookID); !ok {
		return ErrBookNotFound
	}
	if err := s.d.Store.RemoveBook(ctx, callerID, clubID, bookID); err != nil {
		return fmt.Errorf("remove book %s from club %s: %w", bookID, clubID, err)
	}
	return nil
}

// Join makes callerID a member of a public club. Errors: ErrNotFound,
// ErrPrivateJoin, ErrAlreadyMember.
func (s *Service) Join(ctx context.Context, callerID, clubID string) (*Member, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	now := s.d.Now().UTC()
	m := &Member{ClubID: clubID, UserID: callerID, Role: RoleMember, JoinedAt: now, UpdatedAt: now}
	if err := s.d.Store.Join(ctx, m); err != nil {
		return nil, fmt.Errorf("join club %s: %w", clubID, err)
	}
	return m, nil
}

// AddMember makes userID a member of a club on behalf of callerID, its
// host or a moderator: how a private club gains members. Errors:
// ValidationError, ErrNotFound, ErrNotManager, users.ErrNotFound,
// ErrUserAlreadyMember.
func (s *Service) AddMember(ctx context.Context, callerID, clubID, userID string) (*Member, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	id, msg := ids.Required(userID)
	if msg != "" {
		return nil, apperr.Validation("Invalid request", map[string]string{"userId": msg})
	}
	now := s.d.Now().UTC()
	m := &Member{ClubID: clubID, UserID: id, Role: RoleMember, JoinedAt: now, UpdatedAt: now}
	if err := s.d.Store.AddMember(ctx, callerID, m); err != nil {
		return nil, fmt.Errorf("add %s to club %s: %w", id, clubID, err)
	}
	return m, nil
}

// Leave ends callerID's membership. Errors: ErrNotFound, ErrNotMember,
// ErrHostCannotLeave.
func (s *Service) Leave(ctx context.Context, callerID, clubID string) error {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return ErrNotFound
	}
	if err := s.d.Store.Leave(ctx, clubID, callerID); err != nil {
		return fmt.Errorf("leave club %s: %w", clubID, err)
	}
	return nil
}

// SetRole makes a member a moderator or a plain member on behalf of
// callerID, the host. Errors: ValidationError (a role other than
// moderator or member), ErrNotFound, ErrNotHost, ErrMemberNotFound,
// ErrHostRole.
func (s *Service) SetRole(ctx context.Context, callerID, clubID, userID, role string) (*Member, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	r := Role(role)
	if r != RoleModerator && r != RoleMember {
		return nil, apperr.Validation("Invalid role", map[string]string{"role": "must be moderator or member"})
	}
	if userID, ok = ids.Parse(userID); !ok {
		return nil, ErrMemberNotFound
	}
	m, err := s.d.Store.SetRole(ctx, clubID, callerID, userID, r, s.d.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("set role of %s in club %s: %w", userID, clubID, err)
	}
	return m, nil
}

// Members returns a page of a club's members, oldest first, with their
// accounts, and the club's member count; the club, the viewer's
// membership and the page are read side by side. Errors: ErrNotFound,
// ErrSignInRequired, ErrPrivate, page.ErrInvalidCursor.
func (s *Service) Members(ctx context.Context, viewerID, clubID string, c page.Cursor) (page.Page[MemberView], int, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return page.Page[MemberView]{}, 0, ErrNotFound
	}
	var (
		club *Club
		m    *Member
		p    page.Page[*Member]
		g    errgroup.Group
	)
	g.Go(func() (err error) { club, err = s.d.Store.GetClub(ctx, clubID); return err })
	g.Go(func() (err error) { m, err = s.member(ctx, clubID, viewerID); return err })
	g.Go(func() (err error) { p, err = s.d.Store.ListMembers(ctx, clubID, c); return err })
	if err := g.Wait(); err != nil {
		return page.Page[MemberView]{}, 0, fmt.Errorf("members of club %s: %w", clubID, err)
	}
	if err := CanRead(club, m, viewerID); err != nil {
		return page.Page[MemberView]{}, 0, err
	}
	us, err := posts.Accounts(ctx, s.d.Briefs, p.Items, func(m *Member) string { return m.UserID })
	if err != nil {
		return page.Page[MemberView]{}, 0, fmt.Errorf("members of club %s: %w", clubID, err)
	}
	return page.Map(p, func(m *Member) MemberView { return MemberView{Member: m, User: us[m.UserID]} }), club.MemberCount, nil
}

// Mine returns a page of the clubs callerID belongs to, private ones
// included, the most recently joined first.
func (s *Service) Mine(ctx context.Context, callerID string, c page.Cursor) (page.Page[Membership], error) {
	return s.memberships(ctx, callerID, c, false)
}

// OfUser returns a page of the public clubs the account named username
// belongs to. A page may hold fewer than the limit (private clubs are
// left out) and still have a next page. Errors: users.ErrNotFound,
// page.ErrInvalidCursor.
func (s *Service) OfUser(ctx context.Context, username string, c page.Cursor) (page.Page[Membership], error) {
	userID, err := posts.OwnerID(ctx, s.d.Users, username)
	if err != nil {
		return page.Page[Membership]{}, err
	}
	return s.memberships(ctx, userID, c, true)
}

// memberships reads a page of userID's memberships and their clubs.
// Memberships whose club is gone (a delete that stopped half way) are
// left out, and so are private clubs when publicOnly.
func (s *Service) memberships(ctx context.Context, userID string, c page.Cursor, publicOnly bool) (page.Page[Membership], error) {
	p, err := s.d.Store.ListUserClubs(ctx, userID, c)
	if err != nil {
		return page.Page[Membership]{}, fmt.Errorf("clubs of user %s: %w", userID, err)
	}
	clubIDs := make([]string, len(p.Items))
	for i, m := range p.Items {
		clubIDs[i] = m.ClubID
	}
	cs, err := s.d.Store.GetClubs(ctx, clubIDs)
	if err != nil {
		return page.Page[Membership]{}, fmt.Errorf("clubs of user %s: %w", userID, err)
	}
	out := page.Page[Membership]{Items: []Membership{}, Next: p.Next}
	for _, m := range p.Items {
		club := cs[m.ClubID]
		if club == nil || publicOnly && !club.IsPublic {
			continue
		}
		out.Items = append(out.Items, Membership{Club: club, Member: m})
	}
	return out, nil
}

// sortBooks orders a reading list as the single view shows it: in the
// order the books were added, ties by book id.
func sortBooks(bs []*Book) {
	sort.Slice(bs, func(i, j int) bool {
		if !bs[i].AddedAt.Equal(bs[j].AddedAt) {
			return bs[i].AddedAt.Before(bs[j].AddedAt)
		}
		return bs[i].BookID < bs[j].BookID
	})
}
