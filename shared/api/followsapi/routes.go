// Package followsapi is the follows endpoint group (/v1/follows, designed:
// the spec names the base path only): follow and unfollow a reader or a
// store, see whether one follows them, the caller's followers, and the
// readers and the stores the caller follows. Paths name the kind of
// target (/follows/users/{userId}, /follows/stores/{storeId})
// (docs/decisions.md, "Follows").
package followsapi

import (
	"github.com/bookplatform/backend/shared/page"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/storejson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/httpapi"
)

// handler serves the follows group.
type handler struct {
	follows *follows.Service
}

// followActions: following and unfollowing both count against
// follow_user (30 an hour), as liking and unliking both count against
// like: a tap is a tap either way, and a follow/unfollow loop would
// otherwise notify a reader without limit.
var followActions = []string{"follow_user"}

// Group is the follows group. Its calls: TransactWriteItems for a follow
// (with its event: follows.Events) or unfollow with its counters (parts:
// PutItem, DeleteItem, UpdateItem); GetItem for the follower count after it and a follow's
// state; Query for the lists (GSI1, GSI2); BatchGetItem for a page's
// accounts or stores.
func Group(d api.Deps) api.Group {
	h := &handler{follows: follows.NewService(follows.Deps{
		Store: dynamo.NewFollows(d.Table), Briefs: dynamo.NewBriefs(d.Table), Stores: d.StoreHosts, Now: d.Now,
	})}
	cursor := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
	f := h.follows
	return api.Group{
		Name: "follows",
		Table: []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem",
			"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:UpdateItem"},
		Emits: follows.Events,
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/follows/users/{userId}"), Auth: httpapi.AuthBearer, Actions: followActions, Idempotent: true,
				Handler: change(f.FollowUser, "userId", newChanged),
				Doc: httpapi.Doc{Summary: "Follow a reader", Response: changed{}, Errors: []int{400, 404},
					Why: map[int]string{400: "following oneself, or a reader the caller already follows (VALIDATION_ERROR); not a 409.", 404: "no reader has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/follows/users/{userId}"), Auth: httpapi.AuthBearer, Actions: followActions,
				Handler: change(f.UnfollowUser, "userId", newChanged),
				Doc: httpapi.Doc{Summary: "Stop following a reader", Response: changed{}, Errors: []int{400, 404},
					Why: map[int]string{400: "unfollowing oneself, or a reader the caller does not follow (VALIDATION_ERROR).", 404: "no reader has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/follows/users/{userId}"), Auth: httpapi.AuthBearer,
				Handler: state(f, follows.KindUser, "userId", newStatus),
				Doc: httpapi.Doc{Summary: "Whether the caller follows a reader, and the reader's follower count", Response: status{}, Errors: []int{404},
					Why: map[int]string{404: "no reader has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/follows/stores/{storeId}"), Auth: httpapi.AuthBearer, Actions: followActions, Idempotent: true,
				Handler: change(f.FollowStore, "storeId", newStoreChanged),
				Doc: httpapi.Doc{Summary: "Follow a store", Response: storeChanged{}, Errors: []int{400, 404},
					Why: map[int]string{400: "a store the caller already follows (VALIDATION_ERROR); not a 409.", 404: "no store has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/follows/stores/{storeId}"), Auth: httpapi.AuthBearer, Actions: followActions,
				Handler: change(f.UnfollowStore, "storeId", newStoreChanged),
				Doc: httpapi.Doc{Summary: "Stop following a store", Response: storeChanged{}, Errors: []int{400, 404},
					Why: map[int]string{400: "a store the caller does not follow (VALIDATION_ERROR).", 404: "no store has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/follows/stores/{storeId}"), Auth: httpapi.AuthBearer,
				Handler: state(f, follows.KindStore, "storeId", newStoreStatus),
				Doc: httpapi.Doc{Summary: "Whether the caller follows a store, and the store's follower count", Response: storeStatus{}, Errors: []int{404},
					Why: map[int]string{404: "no store has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/follows/following"), Auth: httpapi.AuthBearer, Handler: h.following,
				Doc: httpapi.Doc{Summary: "The readers the caller follows, newest follow first (stores: GET /v1/follows/stores)", Query: cursor, Response: httpapi.CursorBody[userjson.Brief]{}, Errors: []int{400}}},
			{Method: http.MethodGet, Path: httpapi.V1("/follows/stores"), Auth: httpapi.AuthBearer, Handler: h.followingStores,
				Doc: httpapi.Doc{Summary: "The stores the caller follows, newest follow first", Query: cursor, Response: httpapi.CursorBody[storejson.Brief]{}, Errors: []int{400}}},
			{Method: http.MethodGet, Path: httpapi.V1("/follows/followers"), Auth: httpapi.AuthBearer, Handler: h.followers,
				Doc: httpapi.Doc{Summary: "The readers who follow the caller, newest follow first", Query: cursor, Response: httpapi.CursorBody[userjson.Brief]{}, Errors: []int{400}}},
		},
	}
}
