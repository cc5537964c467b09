package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/guregu/dynamo/v2"
)

// Likes: one mechanism for lines and reviews. A like is an item in the
// liked item's own partition (PK of the item, SK LIKE#<userId>), created
// or removed in one transaction with the item's likeCount, so the count
// is exact and one user counts once even when tapping twice at once.

const likePrefix = "LIKE#"

func likeSK(userID string) string { return likePrefix + userID }

type likeItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	Type      string    `dynamo:"type"`
	UserID    string    `dynamo:"userId"`
	CreatedAt time.Time `dynamo:"createdAt"`
}

// like records userID's like of the item (pk, sk) and returns its new
// likeCount. Errors: NotFound (what + " not found"), ValidationError
// "Already liked".
func (s *Store) like(ctx context.Context, what, pk, sk, userID string) (int, error) {
	rec := s.table.Put(likeItem{PK: pk, SK: likeSK(userID), Type: "Like", UserID: userID, CreatedAt: s.now().UTC()}).If("attribute_not_exists(PK)")
	return s.setLike(ctx, s.db.WriteTx().Put(rec), what, pk, sk, userID, 1, "Already liked")
}

// unlike removes userID's like of the item and returns its new likeCount.
// Errors: NotFound, ValidationError "Not liked".
func (s *Store) unlike(ctx context.Context, what, pk, sk, userID string) (int, error) {
	rec := s.table.Delete(AttrPK, pk).Range(AttrSK, likeSK(userID)).If("attribute_exists(PK)")
	return s.setLike(ctx, s.db.WriteTx().Delete(rec), what, pk, sk, userID, -1, "Not liked")
}

// setLike runs tx (the like record's change, item 0) with the item's
// likeCount change (item 1), then reads the new count.
func (s *Store) setLike(ctx context.Context, tx *dynamo.WriteTx, what, pk, sk, userID string, delta int, already string) (int, error) {
	err := tx.Update(s.table.Update(AttrPK, pk).Range(AttrSK, sk).Add("likeCount", delta).If("attribute_exists(PK)")).Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		switch {
		case failedCondition(codes, 1):
			return 0, apperr.NotFound("%s not found", what)
		case failedCondition(codes, 0):
			return 0, apperr.Validation(already, nil)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("change like of %s %s by %s: %w", what, pk, userID, err)
	}
	return s.likeCount(ctx, what, pk, sk)
}

func (s *Store) likeCount(ctx context.Context, what, pk, sk string) (int, error) {
	var out struct {
		LikeCount int `dynamo:"likeCount"`
	}
	err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.Equal, sk).Project("likeCount").Consistent(true).One(ctx, &out)
	if errors.Is(err, dynamo.ErrNotFound) {
		return 0, apperr.NotFound("%s not found", what) // deleted since
	}
	if err != nil {
		return 0, fmt.Errorf("read likeCount of %s: %w", pk, err)
	}
	return out.LikeCount, nil
}

// likedBy reports which of the items (ids, keyed by pkOf) userID has
// liked, by id: one BatchGetItem for the whole page (isLiked on lists). No
// user, no call.
func (s *Store) likedBy(ctx context.Context, userID string, ids []string, pkOf func(string) string) (map[string]bool, error) {
	liked := make(map[string]bool, len(ids))
	if userID == "" || len(ids) == 0 {
		return liked, nil
	}
	idOf := make(map[string]string, len(ids))
	keys := make([]dynamo.Keyed, 0, len(ids))
	for _, id := range ids {
		pk := pkOf(id)
		if _, dup := idOf[pk]; !dup {
			idOf[pk] = id
			keys = append(keys, dynamo.Keys{pk, likeSK(userID)})
		}
	}
	var items []likeItem
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Project(AttrPK).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, fmt.Errorf("read likes of %s: %w", userID, err)
	}
	for _, it := range items {
		liked[idOf[it.PK]] = true
	}
	return liked, nil
}

// distinct drops repeated ids: BatchGetItem refuses a key twice.
func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// deleteLikes removes every like of an item (its likes live in its
// partition), after the item itself is gone: a crash in between leaves
// like records of a missing item, which nothing reads and a retry removes.
func (s *Store) deleteLikes(ctx context.Context, pk string) error {
	return s.deletePrefix(ctx, pk, likePrefix)
}

// keyOnly reads just an item's key.
type keyOnly struct {
	PK string `dynamo:"PK"`
	SK string `dynamo:"SK"`
}

// deletePrefix deletes every item of partition pk whose sort key begins
// with prefix (an item's likes, a line's replies), in batches of 25.
func (s *Store) deletePrefix(ctx context.Context, pk, prefix string) error {
	var items []keyOnly
	if err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.BeginsWith, prefix).Project(AttrPK, AttrSK).All(ctx, &items); err != nil {
		return fmt.Errorf("list %s items of %s: %w", prefix, pk, err)
	}
	keys := make([]dynamo.Keyed, len(items))
	for i, it := range items {
		keys[i] = dynamo.Keys{it.PK, it.SK}
	}
	for len(keys) > 0 {
		n := min(len(keys), 25)
		if _, err := s.table.Batch(AttrPK, AttrSK).Write().Delete(keys[:n]...).Run(ctx); err != nil {
			return fmt.Errorf("delete %d items: %w", n, err)
		}
		keys = keys[n:]
	}
	return nil
}
