package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

// Follows stores follows. A follow and the counters it moves change in
// one transaction, so followerCount and followingCount are exact and a
// double tap follows once.
type Follows struct{ t *table }

var _ follows.Storer = (*Follows)(nil)

// followTarget is what the store knows of one kind of target: its part
// of the keys, the item holding its followerCount, the condition of that
// item being followable and the error meaning it is not (missing, or a
// store being deleted), and whether following it counts in the
// follower's followingCount (readers followed: the profile's count is
// that of GET /follows/following, which lists readers).
type followTarget struct {
	keyKind        string
	key            func(id string) Key
	live           string
	notFound       error
	countFollowing bool
}

var followTargets = map[follows.Kind]followTarget{
	follows.KindUser: {keyKind: followTargetUser, key: UserKey, live: "attribute_exists(PK)", notFound: users.ErrNotFound, countFollowing: true},
	// A store being deleted is not followable: its deletion removes its
	// follows after marking it, so none can be added behind it.
	follows.KindStore: {keyKind: followTargetStore, key: StoreKey, live: storeLive, notFound: storehost.ErrStoreNotFound},
}

func targetOf(kind follows.Kind) (followTarget, error) {
	t, ok := followTargets[kind]
	if !ok {
		return followTarget{}, fmt.Errorf("follow kind %q has no target in the store", kind)
	}
	return t, nil
}

// followItem is a follow as stored (FollowKey), listed on GSI1 under its
// follower (following) and on GSI2 under its target (followers), both
// newest first.
type followItem struct {
	PK         string    `dynamo:"PK"`
	SK         string    `dynamo:"SK"`
	GSI1PK     string    `dynamo:"GSI1PK"`
	GSI1SK     string    `dynamo:"GSI1SK"`
	GSI2PK     string    `dynamo:"GSI2PK"`
	GSI2SK     string    `dynamo:"GSI2SK"`
	Type       string    `dynamo:"type"`
	FollowerID string    `dynamo:"followerId"`
	Kind       string    `dynamo:"kind"`
	TargetID   string    `dynamo:"targetId"`
	CreatedAt  time.Time `dynamo:"createdAt"`
}

func (it followItem) toFollow() follows.Follow {
	return follows.Follow{FollowerID: it.FollowerID, Kind: follows.Kind(it.Kind), TargetID: it.TargetID, CreatedAt: it.CreatedAt}
}

// Follow puts the follow, adds one to the target's followerCount (and
// the follower's followingCount) and records ev in the outbox, in one
// TransactWriteItems, the target first so that a missing target is
// reported whatever else fails. Errors: the target's not-found error,
// follows.ErrAlreadyFollowing.
func (s *Follows) Follow(ctx context.Context, f follows.Follow, ev events.Event) error {
	tg, err := targetOf(f.Kind)
	if err != nil {
		return err
	}
	k := FollowKey(f.FollowerID, tg.keyKind, f.TargetID)
	it := followItem{
		PK: k.PK, SK: k.SK,
		GSI1PK: following(f.FollowerID, tg.keyKind).pk, GSI1SK: timeIDKey(f.CreatedAt, f.TargetID),
		GSI2PK: followers(tg.keyKind, f.TargetID).pk, GSI2SK: timeIDKey(f.CreatedAt, f.FollowerID),
		Type: typeFollow, FollowerID: f.FollowerID, Kind: string(f.Kind), TargetID: f.TargetID, CreatedAt: f.CreatedAt.UTC(),
	}
	x := s.t.tx().update(s.t.update(tg.key(f.TargetID)).Add("followerCount", 1).If(tg.live), tg.notFound)
	if tg.countFollowing {
		x.update(s.t.update(UserKey(f.FollowerID)).Add("followingCount", 1).If("attribute_exists(PK)"), users.ErrNotFound)
	}
	if err := x.put(s.t.put(it).If("attribute_not_exists(PK)"), follows.ErrAlreadyFollowing).emit(ev).run(ctx); err != nil {
		return fmt.Errorf("follow %s %s by %s: %w", f.Kind, f.TargetID, f.FollowerID, err)
	}
	return nil
}

// Unfollow deletes the follow and subtracts one from both counts in one
// TransactWriteItems. Errors: the target's not-found error,
// follows.ErrNotFollowing.
func (s *Follows) Unfollow(ctx context.Context, followerID string, kind follows.Kind, targetID string) error {
	tg, err := targetOf(kind)
	if err != nil {
		return err
	}
	x := s.t.tx().
		update(s.t.update(tg.key(targetID)).Add("followerCount", -1).If(tg.live), tg.notFound).
		delete(s.t.del(FollowKey(followerID, tg.keyKind, targetID)).If("attribute_exists(PK)"), follows.ErrNotFollowing)
	if tg.countFollowing {
		x.update(s.t.update(UserKey(followerID)).Add("followingCount", -1).If("attribute_exists(PK)"), users.ErrNotFound)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("unfollow %s %s by %s: %w", kind, targetID, followerID, err)
	}
	return nil
}

// FollowerCount reads the target's followerCount (GetItem, consistent,
// projected). Errors: the target's not-found error, also for a store
// being deleted.
func (s *Follows) FollowerCount(ctx context.Context, kind follows.Kind, targetID string) (int, error) {
	tg, err := targetOf(kind)
	if err != nil {
		return 0, err
	}
	var out struct {
		FollowerCount int  `dynamo:"followerCount"`
		Deleting      bool `dynamo:"deleting"`
	}
	err = s.t.get(tg.key(targetID)).Project("followerCount", "deleting").Consistent(true).One(ctx, &out)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && out.Deleting) {
		return 0, fmt.Errorf("followers of %s %s: %w", kind, targetID, tg.notFound)
	}
	if err != nil {
		return 0, fmt.Errorf("followers of %s %s: %w", kind, targetID, err)
	}
	return out.FollowerCount, nil
}

// IsFollowing reads the follow's key (GetItem, consistent, projected).
func (s *Follows) IsFollowing(ctx context.Context, followerID string, kind follows.Kind, targetID string) (bool, error) {
	tg, err := targetOf(kind)
	if err != nil {
		return false, err
	}
	var it keyOnly
	err = s.t.get(FollowKey(followerID, tg.keyKind, targetID)).Project(AttrPK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("follow of %s %s by %s: %w", kind, targetID, followerID, err)
	}
	return true, nil
}

// ListFollowing reads a page of a follower's follows of one kind, newest
// first (GSI1).
func (s *Follows) ListFollowing(ctx context.Context, followerID string, kind follows.Kind, c page.Cursor) (page.Page[follows.Follow], error) {
	tg, err := targetOf(kind)
	if err != nil {
		return page.Page[follows.Follow]{}, err
	}
	return s.list(ctx, following(followerID, tg.keyKind), c)
}

// ListFollowers reads a page of a target's followers, newest first
// (GSI2).
func (s *Follows) ListFollowers(ctx context.Context, kind follows.Kind, targetID string, c page.Cursor) (page.Page[follows.Follow], error) {
	tg, err := targetOf(kind)
	if err != nil {
		return page.Page[follows.Follow]{}, err
	}
	return s.list(ctx, followers(tg.keyKind, targetID), c)
}

// list reads a page of follows. Index reads are eventually consistent:
// a follow of a moment ago may miss the page being read.
func (s *Follows) list(ctx context.Context, l list, c page.Cursor) (page.Page[follows.Follow], error) {
	return queryMapped(ctx, s.t, l, c, followItem.toFollow)
}

// forgetFollowers removes every follow of a target that is going away (a
// store being deleted, which refuses new follows already): a walk over
// its followers' list (GSI2) a page at a time, deleting each page's
// follows with BatchWriteItem. The index is eventually consistent, so a
// follow written a moment before the walk may be missed: it is left to
// the readers of following lists, which skip targets that are gone. A
// kind whose follows count in the follower's followingCount cannot be
// forgotten this way (the counts would go wrong).
func (s *Follows) forgetFollowers(ctx context.Context, kind follows.Kind, targetID string) error {
	tg, err := targetOf(kind)
	if err != nil {
		return err
	}
	if tg.countFollowing {
		return fmt.Errorf("forget followers of %s %s: its follows are counted on the followers", kind, targetID)
	}
	err = eachPage(ctx, s.t, followers(tg.keyKind, targetID), func(ctx context.Context, items []keyOnly) error {
		keys := make([]Key, len(items))
		for i, it := range items {
			keys[i] = Key{it.PK, it.SK}
		}
		return s.t.deleteKeys(ctx, keys)
	})
	if err != nil {
		return fmt.Errorf("forget followers of %s %s: %w", kind, targetID, err)
	}
	return nil
}
