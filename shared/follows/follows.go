// Package follows is the follows domain: a reader following another
// reader (and, once stores exist, a store), the follow state machine
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
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Kind is what is followed. Every follow names its kind, in its keys as
// in its lists, so that following a store is one more Kind (its counter
// lives on the store) rather than another design.
type Kind string

// Kinds.
const (
	KindUser Kind = "user"
)

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
	// Follow stores f and adds one to the target's followerCount and the
	// follower's followingCount, in one transaction. Errors: the target
	// kind's not-found error (users.ErrNotFound), ErrAlreadyFollowing.
	Follow(ctx context.Context, f Follow) error
	// Unfollow removes followerID's follow of the target and subtracts
	// one from both counts, in one transaction. Errors: the target kind's
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
	Briefs posts.Reader // the accounts of a page of follows
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
	return &Service{d: d}
}

// FollowUser makes callerID follow the user targetID and returns the
// target's new follower count. Errors: ErrSelf, ErrAlreadyFollowing,
// users.ErrNotFound (also for an id that is not a UUID).
func (s *Service) FollowUser(ctx context.Context, callerID, targetID string) (Result, error) {
	targetID, err := s.userTarget(callerID, targetID)
	if err != nil {
		return Result{}, err
	}
	f := Follow{FollowerID: callerID, Kind: KindUser, TargetID: targetID, CreatedAt: s.d.Now().UTC()}
	if err := s.d.Store.Follow(ctx, f); err != nil {
		return Result{}, fmt.Errorf("%s follows user %s: %w", callerID, targetID, err)
	}
	return s.result(ctx, true, targetID)
}

// UnfollowUser ends callerID's follow of the user targetID and returns
// the target's new follower count. Errors: ErrSelf (one cannot follow
// oneself, so cannot unfollow either), ErrNotFollowing,
// users.ErrNotFound.
func (s *Service) UnfollowUser(ctx context.Context, callerID, targetID string) (Result, error) {
	targetID, err := s.userTarget(callerID, targetID)
	if err != nil {
		return Result{}, err
	}
	if err := s.d.Store.Unfollow(ctx, callerID, KindUser, targetID); err != nil {
		return Result{}, fmt.Errorf("%s unfollows user %s: %w", callerID, targetID, err)
	}
	return s.result(ctx, false, targetID)
}

// userTarget checks the id of a user to follow.
func (s *Service) userTarget(callerID, targetID string) (string, error) {
	id, ok := ids.Parse(targetID)
	switch {
	case !ok:
		return "", users.ErrNotFound
	case id == callerID:
		return "", ErrSelf
	}
	return id, nil
}

// result reads the target's count after a change, which is the count
// the change made or a later one: the profile a client shows next.
func (s *Service) result(ctx context.Context, following bool, targetID string) (Result, error) {
	n, err := s.d.Store.FollowerCount(ctx, KindUser, targetID)
	if err != nil {
		return Result{}, fmt.Errorf("followers of user %s: %w", targetID, err)
	}
	return Result{TargetID: targetID, IsFollowing: following, FollowerCount: n}, nil
}

// Status says whether callerID follows the user targetID, with the
// target's follower count. Errors: users.ErrNotFound.
func (s *Service) Status(ctx context.Context, callerID, targetID string) (Result, error) {
	id, ok := ids.Parse(targetID)
	if !ok {
		return Result{}, users.ErrNotFound
	}
	var (
		r = Result{TargetID: id}
		g errgroup.Group
	)
	g.Go(func() (err error) {
		r.IsFollowing, err = s.d.Store.IsFollowing(ctx, callerID, KindUser, id)
		return err
	})
	g.Go(func() (err error) { r.FollowerCount, err = s.d.Store.FollowerCount(ctx, KindUser, id); return err })
	if err := g.Wait(); err != nil {
		return Result{}, fmt.Errorf("follow of user %s: %w", id, err)
	}
	return r, nil
}

// Following returns a page of the users callerID follows, newest follow
// first; Followers a page of the users who follow callerID. An account
// that is gone is left out of its page. Errors: page.ErrInvalidCursor.
func (s *Service) Following(ctx context.Context, callerID string, c page.Cursor) (page.Page[*users.User], error) {
	p, err := s.d.Store.ListFollowing(ctx, callerID, KindUser, c)
	if err != nil {
		return page.Page[*users.User]{}, fmt.Errorf("following of %s: %w", callerID, err)
	}
	return s.accounts(ctx, p, func(f Follow) string { return f.TargetID })
}

// Followers: see Following.
func (s *Service) Followers(ctx context.Context, callerID string, c page.Cursor) (page.Page[*users.User], error) {
	p, err := s.d.Store.ListFollowers(ctx, KindUser, callerID, c)
	if err != nil {
		return page.Page[*users.User]{}, fmt.Errorf("followers of %s: %w", callerID, err)
	}
	return s.accounts(ctx, p, func(f Follow) string { return f.FollowerID })
}

// accounts reads the accounts of a page of follows in one batch.
func (s *Service) accounts(ctx context.Context, p page.Page[Follow], who func(Follow) string) (page.Page[*users.User], error) {
	userIDs := make([]string, len(p.Items))
	for i, f := range p.Items {
		userIDs[i] = who(f)
	}
	us, _, err := s.d.Briefs.GetUsersAndBooks(ctx, userIDs, nil)
	if err != nil {
		return page.Page[*users.User]{}, err
	}
	out := page.Page[*users.User]{Items: make([]*users.User, 0, len(userIDs)), Next: p.Next}
	for _, id := range userIDs {
		if u := us[id]; u != nil {
			out.Items = append(out.Items, u)
		}
	}
	return out, nil
}
