package followsapi

import (
	"context"
	"net/http"

	"github.com/bookplatform/backend/shared/api/storejson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/users"
)

// status is whether the caller follows a reader, and the reader's
// follower count (what a profile's follow button shows).
type status struct {
	UserID        string `json:"userId"`
	IsFollowing   bool   `json:"isFollowing"`
	FollowerCount int    `json:"followerCount"`
}

// changed is the answer of a follow or unfollow, in the shape of a like's
// ({ success, likeCount, isLiked }): the state after the change and the
// reader's follower count.
type changed struct {
	Success bool `json:"success"`
	status
}

// storeStatus and storeChanged are status and changed for a store: its
// id, and its followerCount (the one its profile shows).
type storeStatus struct {
	StoreID       string `json:"storeId"`
	IsFollowing   bool   `json:"isFollowing"`
	FollowerCount int    `json:"followerCount"`
}

type storeChanged struct {
	Success bool `json:"success"`
	storeStatus
}

func newStatus(r follows.Result) status {
	return status{UserID: r.TargetID, IsFollowing: r.IsFollowing, FollowerCount: r.FollowerCount}
}

func newChanged(r follows.Result) changed { return changed{Success: true, status: newStatus(r)} }

func newStoreStatus(r follows.Result) storeStatus {
	return storeStatus{StoreID: r.TargetID, IsFollowing: r.IsFollowing, FollowerCount: r.FollowerCount}
}

func newStoreChanged(r follows.Result) storeChanged {
	return storeChanged{Success: true, storeStatus: newStoreStatus(r)}
}

// change serves a follow or an unfollow (do) of the target named by the
// path parameter param, answering the state after it: POST and DELETE
// /v1/follows/users/{userId} (400 when following oneself, already
// following or not following; 404 for an unknown reader) and
// /v1/follows/stores/{storeId} (400 when already following or not
// following; 404 for an unknown store).
func change[T any](do func(ctx context.Context, callerID, targetID string) (follows.Result, error), param string, answer func(follows.Result) T) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		res, err := do(r.Context(), httpapi.CallerOf(r).ID, r.PathValue(param))
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, answer(res))
	}
}

// state serves GET /v1/follows/users/{userId} and
// /v1/follows/stores/{storeId}: whether the caller follows the target of
// kind, with its follower count.
func state[T any](svc *follows.Service, kind follows.Kind, param string, answer func(follows.Result) T) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		res, err := svc.Get(r.Context(), httpapi.CallerOf(r).ID, kind, r.PathValue(param))
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, answer(res))
	}
}

// following serves GET /v1/follows/following?cursor=&limit=: readers.
func (h *handler) following(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.follows.ListFollowing(r.Context(), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, brief))
}

// followingStores serves GET /v1/follows/stores?cursor=&limit=.
func (h *handler) followingStores(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.follows.ListFollowingStores(r.Context(), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, storeBrief))
}

// followers serves GET /v1/follows/followers?cursor=&limit=.
func (h *handler) followers(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.follows.ListFollowers(r.Context(), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, brief))
}

func brief(u *users.User) userjson.Brief { return userjson.NewBrief(u, false) }

// storeBrief shows a followed store with its logo when it has one.
func storeBrief(b storehost.Brief) storejson.Brief { return *storejson.BriefOf(&b, true) }
