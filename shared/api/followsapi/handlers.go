package followsapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/httpapi"
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

func newStatus(r follows.Result) status {
	return status{UserID: r.TargetID, IsFollowing: r.IsFollowing, FollowerCount: r.FollowerCount}
}

func newChanged(r follows.Result) changed { return changed{Success: true, status: newStatus(r)} }

// follow serves POST /v1/follows/users/{userId}: 400 when following
// oneself or already following, 404 for an unknown reader.
func (h *handler) follow(w http.ResponseWriter, r *http.Request) error {
	res, err := h.follows.FollowUser(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("userId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newChanged(res))
}

// unfollow serves DELETE /v1/follows/users/{userId}: 400 when not
// following.
func (h *handler) unfollow(w http.ResponseWriter, r *http.Request) error {
	res, err := h.follows.UnfollowUser(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("userId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newChanged(res))
}

// status serves GET /v1/follows/users/{userId}.
func (h *handler) status(w http.ResponseWriter, r *http.Request) error {
	res, err := h.follows.Status(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("userId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newStatus(res))
}

// following serves GET /v1/follows/following?cursor=&limit=.
func (h *handler) following(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.follows.Following(r.Context(), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, brief))
}

// followers serves GET /v1/follows/followers?cursor=&limit=.
func (h *handler) followers(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.follows.Followers(r.Context(), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, brief))
}

func brief(u *users.User) userjson.Brief { return userjson.NewBrief(u, false) }
