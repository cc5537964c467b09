package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/likes"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// likeStore is the one like mechanism of every likeable item (lines and
// reviews now); a store embeds it, and its Like, Unlike and LikedBy are
// the store's. A like is an item in the liked item's own partition
// (LikeKey), created or removed in one transaction with the item's
// likeCount, so the count is exact and one user counts once even when
// tapping twice at once.
type likeStore struct {
	t      *table
	target likeTarget
}

// likeTarget says which items a likeStore serves: the key of the item
// of an id, and the error that means the item is missing.
type likeTarget struct {
	key      func(id string) Key
	notFound error
}

type likeItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	Type      string    `dynamo:"type"`
	UserID    string    `dynamo:"userId"`
	CreatedAt time.Time `dynamo:"createdAt"`
}

// Like records userID's like of item id and returns its new state.
// Errors: the target's not-found error, likes.ErrAlreadyLiked.
func (l likeStore) Like(ctx context.Context, id, userID string) (likes.Result, error) {
	return l.change(ctx, id, userID, true)
}

// Unlike removes userID's like of item id and returns its new state.
// Errors: the target's not-found error, likes.ErrNotLiked.
func (l likeStore) Unlike(ctx context.Context, id, userID string) (likes.Result, error) {
	return l.change(ctx, id, userID, false)
}

// change writes the like record's change and the item's likeCount in one
// transaction, the item first so that a like of a missing item is
// reported missing whatever the like record says, then reads the new
// count (consistent).
func (l likeStore) change(ctx context.Context, id, userID string, like bool) (likes.Result, error) {
	k := l.target.key(id)
	lk := LikeKey(k, userID)
	delta := -1
	if like {
		delta = 1
	}
	x := l.t.tx().update(l.t.update(k).Add("likeCount", delta).If("attribute_exists(PK)"), l.target.notFound)
	if like {
		x.put(l.t.put(likeItem{PK: lk.PK, SK: lk.SK, Type: typeLike, UserID: userID, CreatedAt: l.t.now().UTC()}).If("attribute_not_exists(PK)"), likes.ErrAlreadyLiked)
	} else {
		x.delete(l.t.del(lk).If("attribute_exists(PK)"), likes.ErrNotLiked)
	}
	if err := x.run(ctx); err != nil {
		return likes.Result{}, fmt.Errorf("change like of %s by %s: %w", k.PK, userID, err)
	}
	var out struct {
		LikeCount int `dynamo:"likeCount"`
	}
	err := l.t.get(k).Project("likeCount").Consistent(true).One(ctx, &out)
	if errors.Is(err, dynamo.ErrNotFound) {
		return likes.Result{}, fmt.Errorf("read likeCount of %s: %w", k.PK, l.target.notFound) // deleted since
	}
	if err != nil {
		return likes.Result{}, fmt.Errorf("read likeCount of %s: %w", k.PK, err)
	}
	return likes.Result{LikeCount: out.LikeCount, IsLiked: like}, nil
}

// LikedBy reports which of the items (by id) userID has liked: one
// BatchGetItem for the whole page (isLiked on lists). No user, no call.
func (l likeStore) LikedBy(ctx context.Context, userID string, ids []string) (map[string]bool, error) {
	liked := make(map[string]bool, len(ids))
	if userID == "" || len(ids) == 0 {
		return liked, nil
	}
	idOf := make(map[string]string, len(ids))
	keys := make([]dynamo.Keyed, 0, len(ids))
	for _, id := range distinct(ids) {
		k := LikeKey(l.target.key(id), userID)
		idOf[k.PK] = id
		keys = append(keys, k.keyed())
	}
	items, err := batchAll[likeItem](ctx, l.t.batch(keys...).Project(AttrPK))
	if err != nil {
		return nil, fmt.Errorf("read likes of %s: %w", userID, err)
	}
	for _, it := range items {
		liked[idOf[it.PK]] = true
	}
	return liked, nil
}

// deleteAll removes every like of item id (its likes live in its
// partition), after the item itself is gone.
func (l likeStore) deleteAll(ctx context.Context, id string) error {
	return l.t.deletePrefix(ctx, l.target.key(id).PK, likePrefix)
}

// keyOnly reads just an item's key.
type keyOnly struct {
	PK string `dynamo:"PK"`
	SK string `dynamo:"SK"`
}

// deletePageSize bounds each read of deletePrefix: a partition of any
// size is removed a bounded page at a time.
const deletePageSize = 500

// deletePrefix deletes every item of partition pk whose sort key begins
// with prefix (an item's likes, a line's replies, a deleted club's
// memberships), a page of at most deletePageSize keys at a time, each
// page in batches of 25. The Query is strongly consistent: an item
// written just before the caller's delete of their parent (which every
// such write requires to exist) is seen and removed, so nothing is left
// behind.
func (t *table) deletePrefix(ctx context.Context, pk, prefix string) error {
	for {
		var items []keyOnly
		err := t.table.Get(AttrPK, pk).Range(AttrSK, dynamo.BeginsWith, prefix).
			Consistent(true).Project(AttrPK, AttrSK).Limit(deletePageSize).All(ctx, &items)
		if err != nil {
			return fmt.Errorf("list %s items of %s: %w", prefix, pk, err)
		}
		keys := make([]Key, len(items))
		for i, it := range items {
			keys[i] = Key{it.PK, it.SK}
		}
		if err := t.deleteKeys(ctx, keys); err != nil {
			return err
		}
		// The items just deleted are gone from the next read: a short
		// page was the last.
		if len(items) < deletePageSize {
			return nil
		}
	}
}

// deleteKeys deletes the items of keys with BatchWriteItem, 25 a call
// (the call's limit), up to deleteConcurrency calls at once: a page of
// deletePrefix is a few round trips, not twenty one after the other.
func (t *table) deleteKeys(ctx context.Context, keys []Key) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(deleteConcurrency)
	for start := 0; start < len(keys); start += 25 {
		chunk := keys[start:min(start+25, len(keys))]
		g.Go(func() error {
			batch := make([]dynamo.Keyed, len(chunk))
			for i, k := range chunk {
				batch[i] = k.keyed()
			}
			if _, err := t.table.Batch(AttrPK, AttrSK).Write().Delete(batch...).Run(gctx); err != nil {
				return fmt.Errorf("delete %d items: %w", len(chunk), err)
			}
			return nil
		})
	}
	return g.Wait()
}

// deleteConcurrency bounds the BatchWriteItem calls deleteKeys has in
// flight.
const deleteConcurrency = 4
