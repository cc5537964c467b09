package follows

import (
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/events"
)

// The events a follow emits, one per kind of target. A follow's event is
// recorded in the follow's own transaction (Storer.Follow); an unfollow
// emits none yet (no consumer needs one).
var (
	UserFollowed = events.Declaration{
		Type: "user.followed", Version: 1, Data: UserFollowedData{},
		Summary: "A reader started following a reader (POST /v1/follows/users/{userId})",
	}
	StoreFollowed = events.Declaration{
		Type: "store.followed", Version: 1, Data: StoreFollowedData{},
		Summary: "A reader started following a store (POST /v1/follows/stores/{storeId})",
	}
	// Events are the events the follows group emits (api.Group.Emits).
	Events = []events.Declaration{UserFollowed, StoreFollowed}
)

// UserFollowedData is the data of user.followed: the follow, named as
// the follows endpoints name its sides (userId is the reader followed).
type UserFollowedData struct {
	FollowerID string    `json:"followerId"`
	UserID     string    `json:"userId"`
	FollowedAt time.Time `json:"followedAt"`
}

// StoreFollowedData is the data of store.followed.
type StoreFollowedData struct {
	FollowerID string    `json:"followerId"`
	StoreID    string    `json:"storeId"`
	FollowedAt time.Time `json:"followedAt"`
}

// followed is the event of f.
func followed(f Follow) (events.Event, error) {
	switch f.Kind {
	case KindUser:
		return UserFollowed.New(f.CreatedAt, UserFollowedData{FollowerID: f.FollowerID, UserID: f.TargetID, FollowedAt: f.CreatedAt})
	case KindStore:
		return StoreFollowed.New(f.CreatedAt, StoreFollowedData{FollowerID: f.FollowerID, StoreID: f.TargetID, FollowedAt: f.CreatedAt})
	}
	return events.Event{}, fmt.Errorf("follow kind %q emits no event", f.Kind)
}
