// Package follows is the follows domain: a reader following another
// reader or a store, the follow state machine
// (follow, unfollow, the 400s of doing either twice), the exact follower
// and following counts, and the service behind the follows endpoint
// group. It imports no AWS and no HTTP package; storage is reached
// through Storer. docs/decisions.md ("Follows") records the design.
package follows

import (
	"context"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Kind is what is followed. Every follow names its kind, in its keys as
// in its lists, so that following a store is one more Kind (its counter
// lives on the store) rather than another design.
type Kind string

// Kinds.
const (
	KindUser  Kind = "user"
	KindStore Kind = "store"
)

// notFound is the error of a target of the kind that does not exist.
func (k Kind) notFound() error {
	if k == KindStore {
		return storehost.ErrStoreNotFound
	}
	return users.ErrNotFound
}

// Follow is one follower's follow of one target.
type Follow struct {
	FollowerID string
	Kind       Kind
	TargetID   string
	CreatedAt  time.Time
}

// Result is a follow's state: the target (its id in canonical form),
// whether the caller follows it, and its followers.
type Result struct {
	TargetID      string
	IsFollowing   bool
	FollowerCount int
}

// Errors of follows, as the like state machine's (spec: Like state):
// doing a follow or unfollow twice is a 400.
var (
	ErrSelf             = apperr.Validation("You cannot follow yourself", nil)
	ErrAlreadyFollowing = apperr.Validation("Already following", nil)
	ErrNotFollowing     = apperr.Validation("Not following", nil)
)

// Storer is the storage of follows. Implementations return the errors
// named on each method wrapped with context, never (nil, nil).
type Storer interface {
	// Follow stores f, adds one to the target's followerCount (and,
	// for a reader followed, to the follower's followingCount) and
	// records ev in the outbox, in one transaction: the event exists if
	// and only if the follow committed. Errors: the target kind's
	// not-found error (users.ErrNotFound, storehost.ErrStoreNotFound),
	// ErrAlreadyFollowing.
	Follow(ctx context.Context, f Follow, ev events.Event) error
	// Unfollow removes followerID's follow of the target and subtracts
	// one from the counts Follow added to, in one transaction. Errors: the target kind's
	// not-found error, ErrNotFollowing.
	Unfollow(ctx context.Context, followerID string, kind Kind, targetID string) error
	// FollowerCount reads a target's followerCount, strongly consistent.
	// Errors: the target kind's not-found error.
	FollowerCount(ctx context.Context, kind Kind, targetID string) (int, error)
	// IsFollowing reports whether followerID follows the target.
	IsFollowing(ctx context.Context, followerID string, kind Kind, targetID string) (bool, error)
	// ListFollowing reads a page of what followerID follows of a kind,
	// and ListFollowers one of a target's followers, newest first.
	// Errors: page.ErrInvalidCursor.
	ListFollowing(ctx context.Context, followerID string, kind Kind, c page.Cursor) (page.Page[Follow], error)
	ListFollowers(ctx context.Context, kind Kind, targetID string, c page.Cursor) (page.Page[Follow], error)
}

// Deps are the service's collaborators.
type Deps struct {
	Store  Storer
	Briefs posts.Reader        // the accounts of a page of follows
	Stores storehost.Directory // the stores of a page of follows
	Now    func() time.Time
}

// Service implements follows.
type Service struct {
	d Deps
}

// NewService returns the follows service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Stores == nil {
		d.Stores = storehost.None{}
	}
	return &Service{d: d}
}

// FollowUser makes callerID follow the user targetID and returns the
// target's new follower count. Errors: ErrSelf, ErrAlreadyFollowing,
// users.ErrNotFound (also for an id that is not a UUID).
func (s *Service) FollowUser(ctx context.Context, callerID, targetID string) (Result, error) {
	return s.follow(ctx, callerID, KindUser, targetID)
}

// UnfollowUser ends callerID's follow of the user targetID and returns
// the target's new follower count. Errors: ErrSelf (one cannot follow
// oneself, so cannot unfollow either), ErrNotFollowing,
// users.ErrNotFound.
func (s *Service) UnfollowUser(ctx context.Context, callerID, targetID string) (Result, error) {
	return s.unfollow(ctx, callerID, KindUser, targetID)
}

// FollowStore makes callerID follow the store targetID (its owner and
// staff may too) and returns the store's new follower count. Errors:
// ErrAlreadyFollowing, storehost.ErrStoreNotFound (also for an id that
// is not a UUID, and for a store being deleted).
func (s *Service) FollowStore(ctx context.Context, callerID, targetID string) (Result, error) {
	return s.follow(ctx, callerID, KindStore, targetID)
}

// UnfollowStore ends callerID's follow of the store targetID. Errors:
// ErrNotFollowing, storehost.ErrStoreNotFound.
func (s *Service) UnfollowStore(ctx context.Context, callerID, targetID string) (Result, error) {
	return s.unfollow(ctx, callerID, KindStore, targetID)
}

func (s *Service) follow(ctx context.Context, callerID string, kind Kind, targetID string) (Result, error) {
	targetID, err := target(callerID, kind, targetID)
	if err != nil {
		return Result{}, err
	}
	f := Follow{FollowerID: callerID, Kind: kind, TargetID: targetID, CreatedAt: s.d.Now().UTC()}
	ev, err := followed(f)
	if err != nil {
		return Result{}, err
	}
	if err := s.d.Store.Follow(ctx, f, ev); err != nil {
		return Result{}, fmt.Errorf("%s follows %s %s: %w", callerID, kind, targetID, err)
	}
	return s.result(ctx, true, kind, targetID)
}

func (s *Service) unfollow(ctx context.Context, callerID string, kind Kind, targetID string) (Result, error) {
	targetID, err := target(callerID, kind, targetID)
	if err != nil {
		return Result{}, err
	}
	if err := s.d.Store.Unfollow(ctx, callerID, kind, targetID); err != nil {
		return Result{}, fmt.Errorf("%s unfollows %s %s: %w", callerID, kind, targetID, err)
	}
	return s.result(ctx, false, kind, targetID)
}

// target checks the id of a target to follow: an id that is not a UUID
// names nothing (the kind's not-found error), and a reader cannot follow
// themselves.
func target(callerID string, kind Kind, targetID string) (string, error) {
	id, ok := ids.Parse(targetID)
	switch {
	case !ok:
		return "", kind.notFound()
	case kind == KindUser && id == callerID:
		return "", ErrSelf
	}
	return id, nil
}

// result reads the target's count after a change, which is the count
// the change made or a later one: the profile a client shows next.
func (s *Service) result(ctx context.Context, following bool, kind Kind, targetID string) (Result, error) {
	n, err := s.d.Store.FollowerCount(ctx, kind, targetID)
	if err != nil {
		return Result{}, fmt.Errorf("followers of %s %s: %w", kind, targetID, err)
	}
	return Result{TargetID: targetID, IsFollowing: following, FollowerCount: n}, nil
}

// Get says whether callerID follows the target of kind, with the
// target's follower count. Errors: the kind's not-found error
// (users.ErrNotFound, storehost.ErrStoreNotFound).
func (s *Service) Get(ctx context.Context, callerID string, kind Kind, targetID string) (Result, error) {
	id, ok := ids.Parse(targetID)
	if !ok {
		return Result{}, kind.notFound()
	}
	var (
		r = Result{TargetID: id}
		g errgroup.Group
	)
	g.Go(func() (err error) {
		r.IsFollowing, err = s.d.Store.IsFollowing(ctx, callerID, kind, id)
		return err
	})
	g.Go(func() (err error) { r.FollowerCount, err = s.d.Store.FollowerCount(ctx, kind, id); return err })
	if err := g.Wait(); err != nil {
		return Result{}, fmt.Errorf("follow of %s %s: %w", kind, id, err)
	}
	return r, nil
}

// ListFollowing returns a page of the users callerID follows, newest follow
// first; ListFollowers a page of the users who follow callerID. An account
// that is gone is left out of its page. Errors: page.ErrInvalidCursor.
func (s *Service) ListFollowing(ctx context.Context, callerID string, c page.Cursor) (page.Page[*users.User], error) {
	p, err := s.d.Store.ListFollowing(ctx, callerID, KindUser, c)
	if err != nil {
		return page.Page[*users.User]{}, fmt.Errorf("following of %s: %w", callerID, err)
	}
	return s.accounts(ctx, p, func(f Follow) string { return f.TargetID })
}

// ListFollowingStores returns a page of the stores callerID follows, newest
// follow first, as they are shown beside what refers to them. A store
// that is gone (its deletion removes its follows, but the list it reads
// is an index that may lag) is left out of its page. Errors:
// page.ErrInvalidCursor.
func (s *Service) ListFollowingStores(ctx context.Context, callerID string, c page.Cursor) (page.Page[storehost.Brief], error) {
	p, err := s.d.Store.ListFollowing(ctx, callerID, KindStore, c)
	if err != nil {
		return page.Page[storehost.Brief]{}, fmt.Errorf("stores followed by %s: %w", callerID, err)
	}
	storeIDs := make([]string, len(p.Items))
	for i, f := range p.Items {
		storeIDs[i] = f.TargetID
	}
	briefs, err := s.d.Stores.Briefs(ctx, storeIDs)
	if err != nil {
		return page.Page[storehost.Brief]{}, fmt.Errorf("stores followed by %s: %w", callerID, err)
	}
	out := page.Page[storehost.Brief]{Items: make([]storehost.Brief, 0, len(storeIDs)), Next: p.Next}
	for _, id := range storeIDs {
		if b, ok := briefs[id]; ok {
			out.Items = append(out.Items, b)
		}
	}
	return out, nil
}

// ListFollowers: see ListFollowing.
func (s *Service) ListFollowers(ctx context.Context, callerID string, c page.Cursor) (page.Page[*users.User], error) {
	p, err := s.d.Store.ListFollowers(ctx, KindUser, callerID, c)
	if err != nil {
		return page.Page[*users.User]{}, fmt.Errorf("followers of %s: %w", callerID, err)
	}
	return s.accounts(ctx, p, func(f Follow) string { return f.FollowerID })
}

// accounts reads the accounts of a page of follows in one batch.
func (s *Service) accounts(ctx context.Context, p page.Page[Follow], who func(Follow) string) (page.Page[*users.User], error) {
	us, err := posts.Accounts(ctx, s.d.Briefs, p.Items, who)
	if err != nil {
		return page.Page[*users.User]{}, err
	}
	out := page.Page[*users.User]{Items: make([]*users.User, 0, len(p.Items)), Next: p.Next}
	for _, f := range p.Items {
		if u := us[who(f)]; u != nil {
			out.Items = append(out.Items, u)
		}
	}
	return out, nil
}
