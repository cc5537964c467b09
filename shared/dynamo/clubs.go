package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Clubs stores clubs, their memberships and reading lists, and the
// directories GET /clubs reads.
type Clubs struct{ t *table }

var _ clubs.Storer = (*Clubs)(nil)

// clubItem is a club as stored (ClubKey). memberCount and bookCount
// change only with ADD, in the transactions that add or remove a
// membership or a club book.
type clubItem struct {
	PK          string    `dynamo:"PK"`
	SK          string    `dynamo:"SK"`
	Type        string    `dynamo:"type"`
	ID          string    `dynamo:"id"`
	Name        string    `dynamo:"name"`
	Description string    `dynamo:"description"`
	IsPublic    bool      `dynamo:"isPublic"`
	HostID      string    `dynamo:"hostId"`
	StoreID     string    `dynamo:"storeId,omitempty"`
	MemberCount int       `dynamo:"memberCount"`
	BookCount   int       `dynamo:"bookCount"`
	CreatedAt   time.Time `dynamo:"createdAt"`
	UpdatedAt   time.Time `dynamo:"updatedAt"`
}

// memberItem is a membership (ClubMemberKey), listed on GSI1 under its
// club (clubMembers) and on GSI2 under its user (userClubs).
type memberItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	GSI1PK    string    `dynamo:"GSI1PK"`
	GSI1SK    string    `dynamo:"GSI1SK"`
	GSI2PK    string    `dynamo:"GSI2PK"`
	GSI2SK    string    `dynamo:"GSI2SK"`
	Type      string    `dynamo:"type"`
	ClubID    string    `dynamo:"clubId"`
	UserID    string    `dynamo:"userId"`
	Role      string    `dynamo:"role"`
	JoinedAt  time.Time `dynamo:"joinedAt"`
	UpdatedAt time.Time `dynamo:"updatedAt"`
}

// clubBookItem is a book on a reading list (ClubBookKey). Dates are
// YYYY-MM-DD strings, absent when not set, so they compare as days in
// conditions.
type clubBookItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	Type      string    `dynamo:"type"`
	ClubID    string    `dynamo:"clubId"`
	BookID    string    `dynamo:"bookId"`
	Status    string    `dynamo:"status"`
	StartDate string    `dynamo:"startDate,omitempty"`
	EndDate   string    `dynamo:"endDate,omitempty"`
	Notes     string    `dynamo:"notes,omitempty"`
	AddedAt   time.Time `dynamo:"addedAt"`
	UpdatedAt time.Time `dynamo:"updatedAt"`
}

func toClubItem(c *clubs.Club) clubItem {
	k := ClubKey(c.ID)
	return clubItem{
		PK: k.PK, SK: k.SK, Type: typeClub, ID: c.ID, Name: c.Name, Description: c.Description,
		IsPublic: c.IsPublic, HostID: c.HostID, StoreID: c.StoreID, MemberCount: c.MemberCount,
		BookCount: c.BookCount, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(),
	}
}

func (it clubItem) toClub() *clubs.Club {
	return &clubs.Club{
		ID: it.ID, Name: it.Name, Description: it.Description, IsPublic: it.IsPublic, HostID: it.HostID,
		StoreID: it.StoreID, MemberCount: it.MemberCount, BookCount: it.BookCount,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

func toMemberItem(m *clubs.Member) memberItem {
	k := ClubMemberKey(m.ClubID, m.UserID)
	return memberItem{
		PK: k.PK, SK: k.SK,
		GSI1PK: clubMembers(m.ClubID).pk, GSI1SK: timeIDKey(m.JoinedAt, m.UserID),
		GSI2PK: userClubs(m.UserID).pk, GSI2SK: timeIDKey(m.JoinedAt, m.ClubID),
		Type: typeClubMember, ClubID: m.ClubID, UserID: m.UserID, Role: string(m.Role),
		JoinedAt: m.JoinedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
	}
}

func (it memberItem) toMember() *clubs.Member {
	return &clubs.Member{ClubID: it.ClubID, UserID: it.UserID, Role: clubs.Role(it.Role), JoinedAt: it.JoinedAt, UpdatedAt: it.UpdatedAt}
}

func toClubBookItem(b *clubs.Book) clubBookItem {
	k := ClubBookKey(b.ClubID, b.BookID)
	return clubBookItem{
		PK: k.PK, SK: k.SK, Type: typeClubBook, ClubID: b.ClubID, BookID: b.BookID, Status: string(b.Status),
		StartDate: b.StartDate, EndDate: b.EndDate, Notes: b.Notes, AddedAt: b.AddedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC(),
	}
}

func (it clubBookItem) toBook() *clubs.Book {
	return &clubs.Book{
		ClubID: it.ClubID, BookID: it.BookID, Status: clubs.BookStatus(it.Status), StartDate: it.StartDate,
		EndDate: it.EndDate, Notes: it.Notes, AddedAt: it.AddedAt, UpdatedAt: it.UpdatedAt,
	}
}

func clubRef(c *clubs.Club) dirRef {
	return dirRef{id: c.ID, hostID: c.HostID, storeID: c.StoreID, createdAt: c.CreatedAt}
}

// managerCond is the condition of a membership that manages the club's
// books and adds members: the host or a moderator.
func (s *Clubs) managerCheck(clubID, userID string) *dynamo.ConditionCheck {
	return s.t.check(ClubMemberKey(clubID, userID)).If("$ IN (?, ?)", "role", clubs.RoleHost, clubs.RoleModerator)
}

// CreateClub writes the club, its host's membership and its directory
// entries with their counts in one TransactWriteItems (createListed; at
// most 15 items: a store's club also checks that its store is not being
// deleted). Errors: storehost.ErrStoreNotFound.
func (s *Clubs) CreateClub(ctx context.Context, c *clubs.Club, host *clubs.Member) error {
	if err := s.t.createListed(ctx, toClubItem(c), toMemberItem(host), clubDirs(c), clubRef(c)); err != nil {
		return fmt.Errorf("create club %s: %w", c.ID, err)
	}
	return nil
}

// GetClub reads a club, strongly consistent. Errors: clubs.ErrNotFound.
func (s *Clubs) GetClub(ctx context.Context, id string) (*clubs.Club, error) {
	return getOne(ctx, s.t, ClubKey(id), clubItem.toClub, clubs.ErrNotFound, "club "+id)
}

// GetClubs reads clubs by id with BatchGetItem (a reader's list).
func (s *Clubs) GetClubs(ctx context.Context, ids []string) (map[string]*clubs.Club, error) {
	out := make(map[string]*clubs.Club, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	items, err := batchAll[clubItem](ctx, s.t.batch(keysOf(ids, ClubKey)...))
	if err != nil {
		return nil, fmt.Errorf("batch get %d clubs: %w", len(ids), err)
	}
	for _, it := range items {
		out[it.ID] = it.toClub()
	}
	return out, nil
}

// EditClub is one UpdateItem of the name or description, conditional on
// the club existing and being hostID's, returning the new item; only when
// the condition fails is the club read, to tell 404 from 403. Errors:
// clubs.ErrNotFound, clubs.ErrNotHost.
func (s *Clubs) EditClub(ctx context.Context, id, hostID string, e clubs.Edit, now time.Time) (*clubs.Club, error) {
	upd := s.t.update(ClubKey(id)).Set("updatedAt", now.UTC()).If("attribute_exists(PK) AND hostId = ?", hostID)
	if e.Name != nil {
		upd = upd.Set("name", *e.Name)
	}
	if e.Description != nil {
		upd = upd.Set("description", *e.Description)
	}
	return updateOwned(ctx, upd, clubItem.toClub, s.GetClub, clubs.ErrNotHost, "club", id)
}

// UpdateClub writes an edit conditional on the club being hosted by
// prev.HostID, as public or private as prev and hosted for the same store
// (what its directory entries were computed from): without a change of
// visibility one UpdateItem returning the new item; with one a
// TransactWriteItems that also moves the club between the public and
// private directories (the "any" ones keep it), then a consistent read
// for the answer. Errors: clubs.ErrChanged (gone, or changed since read).
func (s *Clubs) UpdateClub(ctx context.Context, prev *clubs.Club, e clubs.Edit, now time.Time) (*clubs.Club, error) {
	upd := ifStore(s.t.update(ClubKey(prev.ID)).Set("updatedAt", now.UTC()).
		If("attribute_exists(PK) AND hostId = ? AND isPublic = ?", prev.HostID, prev.IsPublic), prev.StoreID)
	if e.Name != nil {
		upd = upd.Set("name", *e.Name)
	}
	if e.Description != nil {
		upd = upd.Set("description", *e.Description)
	}
	if e.IsPublic == nil || *e.IsPublic == prev.IsPublic {
		var it clubItem
		err := upd.Value(ctx, &it)
		if dynamo.IsCondCheckFailed(err) {
			return nil, fmt.Errorf("update club %s: %w", prev.ID, clubs.ErrChanged)
		}
		if err != nil {
			return nil, fmt.Errorf("update club %s: %w", prev.ID, err)
		}
		return it.toClub(), nil
	}
	next := *prev
	next.IsPublic = *e.IsPublic
	x := s.t.tx().update(upd.Set("isPublic", next.IsPublic), clubs.ErrChanged)
	s.t.moveEntries(x, clubDirs(prev), clubDirs(&next), clubRef(prev), clubRef(&next))
	if err := x.run(ctx); err != nil {
		return nil, fmt.Errorf("update club %s: %w", prev.ID, err)
	}
	return s.GetClub(ctx, prev.ID)
}

// DeleteClub removes the club, conditional on its visibility and store
// being the ones its directory entries were computed from, and the
// entries with their counts, in one TransactWriteItems. Errors:
// clubs.ErrChanged.
func (s *Clubs) DeleteClub(ctx context.Context, c *clubs.Club) error {
	del := s.t.del(ClubKey(c.ID)).If("attribute_exists(PK) AND isPublic = ?", c.IsPublic)
	if err := s.t.deleteListed(ctx, del, clubs.ErrChanged, clubDirs(c), clubRef(c)); err != nil {
		return fmt.Errorf("delete club %s: %w", c.ID, err)
	}
	return nil
}

// PurgeClub removes a deleted club's memberships and reading list, each
// a bounded page at a time (deletePrefix). No membership or club book
// can be added meanwhile: those transactions require the club item.
func (s *Clubs) PurgeClub(ctx context.Context, id string) error {
	pk := ClubKey(id).PK
	var g errgroup.Group
	g.Go(func() error { return s.t.deletePrefix(ctx, pk, clubMemberPrefix) })
	g.Go(func() error { return s.t.deletePrefix(ctx, pk, clubBookPrefix) })
	if err := g.Wait(); err != nil {
		return fmt.Errorf("purge club %s: %w", id, err)
	}
	return nil
}

// ListClubs reads an offset page of the filter's directory beside its
// count (readDir).
func (s *Clubs) ListClubs(ctx context.Context, f clubs.Filter, o page.Offset) ([]clubs.Ref, int, error) {
	entries, total, err := s.t.readDir(ctx, ClubDir(f), o)
	if err != nil {
		return nil, 0, err
	}
	refs := make([]clubs.Ref, len(entries))
	for i, e := range entries {
		refs[i] = e.toClubRef()
	}
	return refs, total, nil
}

// PageClubs reads a cursor page of the filter's directory (consistent,
// newest first).
func (s *Clubs) PageClubs(ctx context.Context, f clubs.Filter, c page.Cursor) (page.Page[clubs.Ref], error) {
	return queryMapped(ctx, s.t, dirEntries(ClubDir(f)), c, dirEntryItem.toClubRef)
}

func (e dirEntryItem) toClubRef() clubs.Ref {
	return clubs.Ref{ID: e.ID, HostID: e.HostID, StoreID: e.StoreID}
}

// GetListed reads the clubs of directory entries and their hosts in one
// BatchGetItem (the entries carry the host ids), in the entries' order.
func (s *Clubs) GetListed(ctx context.Context, refs []clubs.Ref) ([]*clubs.Club, map[string]*users.User, error) {
	out, hosts := []*clubs.Club{}, map[string]*users.User{}
	if len(refs) == 0 {
		return out, hosts, nil
	}
	keys := make([]dynamo.Keyed, 0, 2*len(refs))
	var hostIDs []string
	for _, r := range refs {
		keys = append(keys, ClubKey(r.ID).keyed())
		hostIDs = append(hostIDs, r.HostID)
	}
	keys = append(keys, keysOf(hostIDs, UserKey)...)
	items, err := batchAll[dynamo.Item](ctx, s.t.batch(keys...))
	if err != nil {
		return nil, nil, fmt.Errorf("batch get %d clubs and their hosts: %w", len(refs), err)
	}
	byID := map[string]*clubs.Club{}
	for _, item := range items {
		typ, _ := item["type"].(*types.AttributeValueMemberS)
		if typ == nil {
			continue
		}
		switch typ.Value {
		case typeClub:
			var it clubItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return nil, nil, fmt.Errorf("decode club: %w", err)
			}
			byID[it.ID] = it.toClub()
		case typeUser:
			var it userItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return nil, nil, fmt.Errorf("decode user: %w", err)
			}
			hosts[it.ID] = it.toUser()
		}
	}
	for _, r := range refs {
		// An entry leaves with its club in one transaction; a club read
		// a moment after its delete is the only way to miss one.
		if c := byID[r.ID]; c != nil {
			out = append(out, c)
		}
	}
	return out, hosts, nil
}

// releaseStore lets every club of a store being deleted go: each stays,
// hosted by its host as a reader's club (docs/decisions.md, "Deleting a
// store"). It walks the store's directory a page at a time; no club can
// join it meanwhile (CreateClub checks that the store is not being
// deleted).
func (s *Clubs) releaseStore(ctx context.Context, storeID string) error {
	l := dirEntries(ClubDir(clubs.Filter{Scope: clubs.ScopeStore, StoreID: storeID}))
	return eachPage(ctx, s.t, l, func(ctx context.Context, entries []dirEntryItem) error {
		return eachItem(ctx, entries, func(ctx context.Context, e dirEntryItem) error { return s.releaseClub(ctx, e.ID, storeID) })
	})
}

// releaseClub detaches one club from storeID: in one transaction, the
// club loses its storeId (conditional on the club as read: its
// visibility and its store decide its entries) and its entries move from
// the store's directories to the readers' ones, their counts with them;
// the entries of the directories it stays in are rewritten without the
// store. A club changed meanwhile is read again; one gone, or no longer
// the store's, is done.
func (s *Clubs) releaseClub(ctx context.Context, clubID, storeID string) error {
	for range maxReleaseAttempts {
		c, err := s.GetClub(ctx, clubID)
		if errors.Is(err, clubs.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if c.StoreID != storeID {
			return nil
		}
		next := *c
		next.StoreID, next.UpdatedAt = "", s.t.now().UTC()
		upd := s.t.update(ClubKey(c.ID)).Remove("storeId").Set("updatedAt", next.UpdatedAt).
			If("attribute_exists(PK) AND isPublic = ? AND storeId = ?", c.IsPublic, storeID)
		x := s.t.tx().update(upd, clubs.ErrChanged)
		s.t.moveEntries(x, clubDirs(c), clubDirs(&next), clubRef(c), clubRef(&next))
		err = x.run(ctx)
		if errors.Is(err, clubs.ErrChanged) {
			continue
		}
		if err != nil {
			return fmt.Errorf("release club %s from store %s: %w", clubID, storeID, err)
		}
		return nil
	}
	return fmt.Errorf("release club %s from store %s: %w", clubID, storeID, apperr.ErrContention)
}

// GetMember reads a membership, strongly consistent. Errors:
// clubs.ErrMemberNotFound.
func (s *Clubs) GetMember(ctx context.Context, clubID, userID string) (*clubs.Member, error) {
	return getOne(ctx, s.t, ClubMemberKey(clubID, userID), memberItem.toMember, clubs.ErrMemberNotFound,
		"member "+userID+" of club "+clubID)
}

// errRefused is a transaction item whose failed condition has more than
// one meaning; the store reads what it needs to tell them apart, only
// then.
var errRefused = errors.New("refused by a condition with several meanings")

// Join adds one to memberCount, conditional on the club existing and
// being public, and puts the membership if absent, in one
// TransactWriteItems. Only when the club's condition fails are the club
// and the membership read, to tell 404 from 403 from 400. Errors:
// clubs.ErrNotFound, clubs.ErrPrivateJoin, clubs.ErrAlreadyMember.
func (s *Clubs) Join(ctx context.Context, m *clubs.Member) error {
	err := s.t.tx().
		update(s.t.update(ClubKey(m.ClubID)).Add("memberCount", 1).If("attribute_exists(PK) AND isPublic = ?", true), errRefused).
		put(s.t.put(toMemberItem(m)).If("attribute_not_exists(PK)"), clubs.ErrAlreadyMember).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetClub(ctx, m.ClubID); err != nil {
			return err
		}
		if _, err := s.GetMember(ctx, m.ClubID, m.UserID); err == nil {
			return fmt.Errorf("join club %s: %w", m.ClubID, clubs.ErrAlreadyMember)
		}
		return fmt.Errorf("join club %s: %w", m.ClubID, clubs.ErrPrivateJoin)
	}
	if err != nil {
		return fmt.Errorf("join club %s: %w", m.ClubID, err)
	}
	return nil
}

// AddMember adds one to memberCount (the club exists), checks that
// byUserID is the host or a moderator and that the account exists, and
// puts the membership if absent, in one TransactWriteItems. Errors:
// clubs.ErrNotFound, clubs.ErrNotManager, users.ErrNotFound,
// clubs.ErrUserAlreadyMember.
func (s *Clubs) AddMember(ctx context.Context, byUserID string, m *clubs.Member) error {
	if byUserID == m.UserID {
		// One item cannot be checked and written in one transaction, and
		// a manager adding themselves is a member already.
		if _, err := s.GetClub(ctx, m.ClubID); err != nil {
			return err
		}
		if _, err := s.GetMember(ctx, m.ClubID, byUserID); err == nil {
			return fmt.Errorf("add member to club %s: %w", m.ClubID, clubs.ErrUserAlreadyMember)
		}
		return fmt.Errorf("add member to club %s: %w", m.ClubID, clubs.ErrNotManager)
	}
	err := s.t.tx().
		update(s.t.update(ClubKey(m.ClubID)).Add("memberCount", 1).If("attribute_exists(PK)"), clubs.ErrNotFound).
		check(s.managerCheck(m.ClubID, byUserID), clubs.ErrNotManager).
		check(s.t.check(UserKey(m.UserID)).If("attribute_exists(PK)"), users.ErrNotFound).
		put(s.t.put(toMemberItem(m)).If("attribute_not_exists(PK)"), clubs.ErrUserAlreadyMember).
		run(ctx)
	if err != nil {
		return fmt.Errorf("add %s to club %s: %w", m.UserID, m.ClubID, err)
	}
	return nil
}

// Leave subtracts one from memberCount and deletes the membership,
// conditional on it existing and not being the host's, in one
// TransactWriteItems; only when the membership's condition fails is it
// read, to say which. Errors: clubs.ErrNotFound, clubs.ErrNotMember,
// clubs.ErrHostCannotLeave.
func (s *Clubs) Leave(ctx context.Context, clubID, userID string) error {
	err := s.t.tx().
		update(s.t.update(ClubKey(clubID)).Add("memberCount", -1).If("attribute_exists(PK)"), clubs.ErrNotFound).
		delete(s.t.del(ClubMemberKey(clubID, userID)).If("attribute_exists(PK) AND $ <> ?", "role", clubs.RoleHost), errRefused).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetMember(ctx, clubID, userID); errors.Is(err, clubs.ErrMemberNotFound) {
			return fmt.Errorf("leave club %s: %w", clubID, clubs.ErrNotMember)
		} else if err != nil {
			return err
		}
		return fmt.Errorf("leave club %s: %w", clubID, clubs.ErrHostCannotLeave)
	}
	if err != nil {
		return fmt.Errorf("leave club %s: %w", clubID, err)
	}
	return nil
}

// SetRole checks that the club exists and byUserID hosts it, and sets
// userID's role unless userID is the host, in one TransactWriteItems.
// Errors: clubs.ErrNotFound, clubs.ErrNotHost, clubs.ErrMemberNotFound,
// clubs.ErrHostRole.
func (s *Clubs) SetRole(ctx context.Context, clubID, byUserID, userID string, role clubs.Role, now time.Time) (*clubs.Member, error) {
	if byUserID == userID {
		// The host's own role: one item cannot be checked and written in
		// one transaction.
		if _, err := s.GetClub(ctx, clubID); err != nil {
			return nil, err
		}
		m, err := s.GetMember(ctx, clubID, userID)
		if err == nil && m.Role == clubs.RoleHost {
			return nil, fmt.Errorf("set role in club %s: %w", clubID, clubs.ErrHostRole)
		}
		return nil, fmt.Errorf("set role in club %s: %w", clubID, clubs.ErrNotHost)
	}
	err := s.t.tx().
		check(s.t.check(ClubKey(clubID)).If("attribute_exists(PK)"), clubs.ErrNotFound).
		check(s.t.check(ClubMemberKey(clubID, byUserID)).If("$ = ?", "role", clubs.RoleHost), clubs.ErrNotHost).
		update(s.t.update(ClubMemberKey(clubID, userID)).Set("role", string(role)).Set("updatedAt", now.UTC()).
			If("attribute_exists(PK) AND $ <> ?", "role", clubs.RoleHost), errRefused).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetMember(ctx, clubID, userID); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("set role in club %s: %w", clubID, clubs.ErrHostRole)
	}
	if err != nil {
		return nil, fmt.Errorf("set role of %s in club %s: %w", userID, clubID, err)
	}
	return &clubs.Member{ClubID: clubID, UserID: userID, Role: role, UpdatedAt: now}, nil
}

// ListMembers reads a page of a club's members in the order they joined
// (GSI1).
func (s *Clubs) ListMembers(ctx context.Context, clubID string, c page.Cursor) (page.Page[*clubs.Member], error) {
	return queryMapped(ctx, s.t, clubMembers(clubID), c, memberItem.toMember)
}

// ListUserClubs reads a page of a user's memberships, the latest joined
// first (GSI2).
func (s *Clubs) ListUserClubs(ctx context.Context, userID string, c page.Cursor) (page.Page[*clubs.Member], error) {
	return queryMapped(ctx, s.t, userClubs(userID), c, memberItem.toMember)
}

// AddBook adds one to bookCount, conditional on the club existing and its
// list not being full, checks that byUserID manages the club and that the
// book exists, and puts the club book if absent, in one
// TransactWriteItems. Only when the club's condition fails are the club
// and the caller's membership read, to tell 404 from 403 from a full
// list. Errors: clubs.ErrNotFound, clubs.ErrNotManager,
// books.ErrNotFound, clubs.ErrBookOnList, clubs.ErrListFull.
func (s *Clubs) AddBook(ctx context.Context, byUserID string, b *clubs.Book) error {
	err := s.t.tx().
		update(s.t.update(ClubKey(b.ClubID)).Add("bookCount", 1).If("attribute_exists(PK) AND bookCount < ?", clubs.MaxBooks), errRefused).
		check(s.managerCheck(b.ClubID, byUserID), clubs.ErrNotManager).
		check(s.t.check(BookKey(b.BookID)).If("attribute_exists(PK)"), books.ErrNotFound).
		put(s.t.put(toClubBookItem(b)).If("attribute_not_exists(PK)"), clubs.ErrBookOnList).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetClub(ctx, b.ClubID); err != nil {
			return err
		}
		if m, err := s.GetMember(ctx, b.ClubID, byUserID); err != nil || !m.Role.ManagesBooks() {
			return fmt.Errorf("add book to club %s: %w", b.ClubID, clubs.ErrNotManager)
		}
		return fmt.Errorf("add book to club %s: %w", b.ClubID, clubs.ErrListFull)
	}
	if err != nil {
		return fmt.Errorf("add book %s to club %s: %w", b.BookID, b.ClubID, err)
	}
	return nil
}

// UpdateBook checks the club and the caller's role and updates the club
// book in one TransactWriteItems; a date set alone is conditional on
// the stored other date (dates compare as text), then the book is read
// for the answer. Only when the book's condition fails is it read, to
// tell 404 from a date out of order. Errors: clubs.ErrNotFound,
// clubs.ErrNotManager, clubs.ErrBookNotFound, clubs.ErrDateOrder.
func (s *Clubs) UpdateBook(ctx context.Context, byUserID, clubID, bookID string, e clubs.BookEdit, now time.Time) (*clubs.Book, error) {
	k := ClubBookKey(clubID, bookID)
	upd := s.t.update(k).Set("updatedAt", now.UTC())
	if e.Status != nil {
		upd = upd.Set("status", *e.Status)
	}
	if e.Notes != nil {
		upd = setOrRemove(upd, "notes", *e.Notes)
	}
	if e.SetStart {
		upd = setOrRemove(upd, "startDate", e.StartDate)
	}
	if e.SetEnd {
		upd = setOrRemove(upd, "endDate", e.EndDate)
	}
	switch {
	case e.SetStart && e.StartDate != "" && !e.SetEnd:
		upd = upd.If("attribute_exists(PK) AND (attribute_not_exists(endDate) OR endDate >= ?)", e.StartDate)
	case e.SetEnd && e.EndDate != "" && !e.SetStart:
		upd = upd.If("attribute_exists(PK) AND (attribute_not_exists(startDate) OR startDate <= ?)", e.EndDate)
	default:
		upd = upd.If("attribute_exists(PK)")
	}
	err := s.t.tx().
		check(s.t.check(ClubKey(clubID)).If("attribute_exists(PK)"), clubs.ErrNotFound).
		check(s.managerCheck(clubID, byUserID), clubs.ErrNotManager).
		update(upd, errRefused).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.getBook(ctx, clubID, bookID); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("update book %s of club %s: %w", bookID, clubID, clubs.ErrDateOrder)
	}
	if err != nil {
		return nil, fmt.Errorf("update book %s of club %s: %w", bookID, clubID, err)
	}
	return s.getBook(ctx, clubID, bookID)
}

// getBook reads a club book, strongly consistent. Errors:
// clubs.ErrBookNotFound.
func (s *Clubs) getBook(ctx context.Context, clubID, bookID string) (*clubs.Book, error) {
	return getOne(ctx, s.t, ClubBookKey(clubID, bookID), clubBookItem.toBook, clubs.ErrBookNotFound,
		"book "+bookID+" of club "+clubID)
}

// RemoveBook subtracts one from bookCount (the club exists), checks the
// caller's role and deletes the club book if there, in one
// TransactWriteItems. Errors: clubs.ErrNotFound, clubs.ErrNotManager,
// clubs.ErrBookNotFound.
func (s *Clubs) RemoveBook(ctx context.Context, byUserID, clubID, bookID string) error {
	err := s.t.tx().
		update(s.t.update(ClubKey(clubID)).Add("bookCount", -1).If("attribute_exists(PK)"), clubs.ErrNotFound).
		check(s.managerCheck(clubID, byUserID), clubs.ErrNotManager).
		delete(s.t.del(ClubBookKey(clubID, bookID)).If("attribute_exists(PK)"), clubs.ErrBookNotFound).
		run(ctx)
	if err != nil {
		return fmt.Errorf("remove book %s from club %s: %w", bookID, clubID, err)
	}
	return nil
}

// ListBooks reads a club's whole reading list with one consistent Query
// of its partition (clubs.MaxBooks items at most).
func (s *Clubs) ListBooks(ctx context.Context, clubID string) ([]*clubs.Book, error) {
	p, err := queryPage[clubBookItem](ctx, s.t, clubBooks(clubID), page.First(clubs.MaxBooks))
	if err != nil {
		return nil, fmt.Errorf("books of club %s: %w", clubID, err)
	}
	return page.Map(p, clubBookItem.toBook).Items, nil
}
