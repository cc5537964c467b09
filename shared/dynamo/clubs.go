package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/optimistic"
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
func (s *Clubs) EditClub(ctx context.Context, id, hostID string, e clubs.UpdateClub, now time.Time) (*clubs.Club, error) {
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
func (s *Clubs) UpdateClub(ctx context.Context, prev *clubs.Club, e clubs.UpdateClub, now time.Time) (*clubs.Club, error) {
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
	if err := clubDeletion(s.t.tx(), c).run(ctx); err != nil {
		return fmt.Errorf("delete club %s: %w", c.ID, err)
	}
	return nil
}

// clubDeletion adds to x the removal of c, if it is still as public or
// private, and hosted for the same store, as it was read (else
// clubs.ErrChanged), and of its directory entries with their counts: the
// host's delete and an operator's takedown remove a club the same way.
func clubDeletion(x *tx, c *clubs.Club) *tx {
	del := x.t.del(ClubKey(c.ID)).If("attribute_exists(PK) AND isPublic = ?", c.IsPublic)
	return x.t.listedDeletion(x, del, clubs.ErrChanged, clubDirs(c), clubRef(c))
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
// The host skip (the caller's account, which the request has:
// posts.Known) is left out.
func (s *Clubs) GetListed(ctx context.Context, refs []clubs.Ref, skip string) ([]*clubs.Club, map[string]*users.User, error) {
	out, hosts := []*clubs.Club{}, map[string]*users.User{}
	if len(refs) == 0 {
		return out, hosts, nil
	}
	keys := make([]dynamo.Keyed, 0, 2*len(refs))
	var hostIDs []string
	for _, r := range refs {
		keys = append(keys, ClubKey(r.ID).keyed())
		if skip == "" || r.HostID != skip {
			hostIDs = append(hostIDs, r.HostID)
		}
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
	err := optimistic.Retry(maxReleaseAttempts, func(int) error {
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
		return x.run(ctx)
	}, clubs.ErrChanged)
	if err != nil {
		return fmt.Errorf("release club %s from store %s: %w", clubID, storeID, err)
	}
	return nil
}
