// Package followsapi is the follows endpoint group (/v1/follows, designed:
// the spec names the base path only): follow and unfollow a reader, see
// whether one follows a reader, and the caller's followers and following.
// Paths name the kind of target (/follows/users/{userId}) so that
// following a store is /follows/stores/{storeId} beside it
// (docs/decisions.md, "Follows").
package followsapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/userjson"
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
// or unfollow with both counters (parts: PutItem, DeleteItem,
// UpdateItem); GetItem for the follower count after it and a follow's
// state; Query for the two lists (GSI1, GSI2); BatchGetItem for a page's
// accounts.
func Group(d api.Deps) api.Group {
	h := &handler{follows: follows.NewService(follows.Deps{Store: d.Stores.Follows, Briefs: d.Stores.Briefs, Now: d.Now})}
	cursor := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		{Name: "limit", Type: "integer", About: "1-100, default 20"},
	}
	return api.Group{
		Name: "follows",
		Table: []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:TransactWriteItems",
			"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:UpdateItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/follows/users/{userId}"), Auth: httpapi.AuthBearer, Actions: followActions, Idempotent: true, Handler: h.follow,
				Doc: httpapi.Doc{Summary: "Follow a reader", Response: changed{}, Errors: []int{400, 404}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/follows/users/{userId}"), Auth: httpapi.AuthBearer, Actions: followActions, Handler: h.unfollow,
				Doc: httpapi.Doc{Summary: "Stop following a reader", Response: changed{}, Errors: []int{400, 404}}},
			{Method: http.MethodGet, Path: httpapi.V1("/follows/users/{userId}"), Auth: httpapi.AuthBearer, Handler: h.status,
				Doc: httpapi.Doc{Summary: "Whether the caller follows a reader, and the reader's follower count", Response: status{}, Errors: []int{404}}},
			{Method: http.MethodGet, Path: httpapi.V1("/follows/following"), Auth: httpapi.AuthBearer, Handler: h.following,
				Doc: httpapi.Doc{Summary: "The readers the caller follows, newest follow first", Query: cursor, Response: httpapi.CursorBody[userjson.Brief]{}, Errors: []int{400}}},
			{Method: http.MethodGet, Path: httpapi.V1("/follows/followers"), Auth: httpapi.AuthBearer, Handler: h.followers,
				Doc: httpapi.Doc{Summary: "The readers who follow the caller, newest follow first", Query: cursor, Response: httpapi.CursorBody[userjson.Brief]{}, Errors: []int{400}}},
		},
	}
}
