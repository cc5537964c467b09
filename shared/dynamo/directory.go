package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// A directory is an offset list with an exact total (GET /clubs, GET
// /challenges): one partition per filter (keys.go, ClubDir,
// ChallengeDir) holding one small entry per listed item and a count item.
// Entries and counts change only inside the transaction that creates,
// moves or deletes the item they list (createListed, moveEntries,
// deleteListed), so the count is the number of entries whatever runs at
// once, and a page is one Query of one partition.

// dirEntryItem lists one club or challenge in one directory. It carries
// the ids the page needs to read beside the item (its host, its store):
// a host never changes, and a store only when its deletion lets the item
// go (moveEntries).
type dirEntryItem struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	Type    string `dynamo:"type"`
	ID      string `dynamo:"id"`
	HostID  string `dynamo:"hostId"`
	StoreID string `dynamo:"storeId,omitempty"`
}

// dirCountItem is a directory's count (DirCountKey).
type dirCountItem struct {
	Count int `dynamo:"count"`
}

// dirRef is what a directory entry says of its item.
type dirRef struct {
	id, hostID, storeID string
	createdAt           time.Time
}

// entry is ref's entry in dir.
func (t *table) entry(dir string, ref dirRef) *dynamo.Put {
	k := dirEntryKey(dir, ref.createdAt, ref.id)
	return t.put(dirEntryItem{PK: k.PK, SK: k.SK, Type: typeDirEntry, ID: ref.id, HostID: ref.hostID, StoreID: ref.storeID})
}

// putEntries adds ref's entry to each directory and one to each count.
func (t *table) putEntries(x *tx, dirs []string, ref dirRef) {
	for _, d := range dirs {
		x.put(t.entry(d, ref), nil)
		x.update(t.update(DirCountKey(d)).Add("count", 1).Set("type", typeDirCount), nil)
	}
}

// deleteEntries removes ref's entry from each directory and one from
// each count.
func (t *table) deleteEntries(x *tx, dirs []string, ref dirRef) {
	for _, d := range dirs {
		x.delete(t.del(dirEntryKey(d, ref.createdAt, ref.id)), nil)
		x.update(t.update(DirCountKey(d)).Add("count", -1), nil)
	}
}

// moveEntries moves an item listed in the directories before, with the
// entry prev, to the directories after, with the entry next: it leaves
// the directories it is no longer in and joins the new ones, their
// counts with it; where what its entry carries changed (a store's
// deletion lets the item go), the entry is written again in the
// directories it stays in, their counts unchanged.
func (t *table) moveEntries(x *tx, before, after []string, prev, next dirRef) {
	t.deleteEntries(x, without(before, after), prev)
	t.putEntries(x, without(after, before), next)
	if next.hostID == prev.hostID && next.storeID == prev.storeID {
		return
	}
	for _, d := range within(before, after) {
		x.put(t.entry(d, next), nil)
	}
}

// within returns the elements of a also in b.
func within(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// without returns the elements of a not in b.
func without(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// createListed writes a new club or challenge (item), its host's
// membership or participation (host) and its entries in dirs with their
// counts, in one transaction. One created for a store also checks that
// the store is not being deleted (storeNotDeleting). Errors:
// storehost.ErrStoreNotFound.
func (t *table) createListed(ctx context.Context, item, host any, dirs []string, ref dirRef) error {
	x := t.tx()
	t.storeNotDeleting(x, ref.storeID)
	x.put(t.put(item).If("attribute_not_exists(PK)"), errIDTaken).
		put(t.put(host).If("attribute_not_exists(PK)"), errIDTaken)
	t.putEntries(x, dirs, ref)
	return x.run(ctx)
}

// deleteListed removes a club or challenge (del, with its own
// conditions) and its entries in dirs with their counts, in one
// transaction, conditional also on the item being hosted for the store
// its entries were computed from (ifStore); changed is what the item's
// condition failing means.
func (t *table) deleteListed(ctx context.Context, del *dynamo.Delete, changed error, dirs []string, ref dirRef) error {
	return t.listedDeletion(t.tx(), del, changed, dirs, ref).run(ctx)
}

// listedDeletion adds deleteListed's writes to x.
func (t *table) listedDeletion(x *tx, del *dynamo.Delete, changed error, dirs []string, ref dirRef) *tx {
	x.delete(ifStore(del, ref.storeID), changed)
	t.deleteEntries(x, dirs, ref)
	return x
}

// maxReleaseAttempts bounds the reads and writes of one club or
// challenge a store's deletion lets go, when it keeps changing meanwhile
// (a visibility flip between the read and the write).
const maxReleaseAttempts = 5

// conditional is a write or check whose condition can be narrowed.
type conditional[T any] interface {
	If(expr string, args ...any) T
}

// ifStore narrows op's condition to its item being hosted for storeID
// ("" for no store), as it was read. A club's or challenge's directory
// entries are computed from its store, and a store's deletion moves them
// (releaseStore): a write that moves entries must find the store it
// computed them from, or it would move entries that are no longer there.
func ifStore[T conditional[T]](op T, storeID string) T {
	if storeID == "" {
		return op.If("attribute_not_exists(storeId)")
	}
	return op.If("storeId = ?", storeID)
}

// storeNotDeleting is the check of a club or challenge created for a
// store: the store is not being deleted. Together with the store read
// that allowed the creation (storehost.Directory.Host), it keeps a
// deletion from missing a club or challenge created while it runs: one
// created before the deletion's mark is in the store's directory when
// the deletion reads it; one after fails this check. (A store that is
// gone altogether has no item, and the read refused it.)
func (t *table) storeNotDeleting(x *tx, storeID string) {
	if storeID != "" {
		x.check(t.check(StoreKey(storeID)).If("attribute_not_exists(deleting)"), storehost.ErrStoreNotFound)
	}
}

// readDir reads an offset page of a directory and its count side by
// side, both strongly consistent.
func (t *table) readDir(ctx context.Context, dir string, o page.Offset) ([]dirEntryItem, int, error) {
	var (
		entries []dirEntryItem
		count   dirCountItem
		g       errgroup.Group
	)
	g.Go(func() (err error) {
		entries, err = queryOffset[dirEntryItem](ctx, t, dirEntries(dir), o, "id", "hostId", "storeId")
		return err
	})
	g.Go(func() error {
		err := t.get(DirCountKey(dir)).Consistent(true).Project("count").One(ctx, &count)
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil // nothing was ever listed here
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("read directory %s: %w", dir, err)
	}
	return entries, count.Count, nil
}
