// Package reviewsapi is the reviews endpoint group: reviews with their
// likes, and the two lists of reviews (a book's, with its rating
// statistics, and a reader's). The lists live here rather than with books
// and users because they read review data: this group's Lambda holds the
// grants for it.
package reviewsapi

import (
	"github.com/bookplatform/backend/shared/page"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/reviews"
)

// handler serves the reviews group.
type handler struct {
	reviews *reviews.Service
}

// Per-action limits (spec: Limits). Editing a review counts against
// create_review like writing one: the spec lists 429 on PUT, and
// create_review is the only review action it names. Taking a like back
// counts against like as giving one does, as on lines.
var (
	writeActions = []string{"create_review"}
	likeActions  = []string{"like"}
	feedActions  = []string{"feed"}
)

// Group is the reviews group. Its calls: BatchGetItem for a book with the
// caller's review claim, a review with the caller's like and isLiked on a
// page; Query for the lists and a deleted review's likes;
// TransactWriteItems for reviews with the book's statistics, likes and
// the quota, granted by its parts (PutItem, UpdateItem, DeleteItem); BatchWriteItem to remove a deleted review's likes.
func Group(d api.Deps) api.Group {
	h := &handler{reviews: reviews.NewService(reviews.Deps{
		Store: dynamo.NewReviews(d.Table),
		Deps: posts.Deps{
			Users: dynamo.NewUsers(d.Table), Books: dynamo.NewBooks(d.Table), Briefs: dynamo.NewBriefs(d.Table), Quota: d.Quota, Now: d.Now,
		},
	})}
	cursor := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
	return api.Group{
		Name:  "reviews",
		Table: []string{"dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/reviews"), Auth: httpapi.AuthBearer, Actions: writeActions, Idempotent: true, Quota: quota.Reviews, Handler: h.post,
				Doc: httpapi.Doc{Summary: "Review a book (201), or update one's review of it (200)", Body: postRequest{}, Response: review{}, Status: http.StatusCreated, Also: []int{http.StatusOK}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the free tier's monthly reviews limit is reached (`details` is the MonthlyLimitReached body); an update of the caller's review of the book is not counted.", 404: "no book has this bookId."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/reviews/{id}"), Auth: httpapi.AuthBearer, Handler: h.get,
				Doc: httpapi.Doc{Summary: "A review with its author, book and the caller's like", Response: review{}, Errors: []int{404},
					Why: map[int]string{404: "no review has this id."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/reviews/{id}"), Auth: httpapi.AuthBearer, Actions: writeActions, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Edit one's review", Body: updateRequest{}, Response: edited{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is not the review's author.", 404: "no review has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/reviews/{id}"), Auth: httpapi.AuthBearer, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Delete one's review", Response: httpapi.Success{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller is not the review's author.", 404: "no review has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/reviews/{id}/like"), Auth: httpapi.AuthBearer, Actions: likeActions, Handler: h.like,
				Doc: httpapi.Doc{Summary: "Like a review", Response: httpapi.Liked{}, Errors: []int{400, 404},
					Why: map[int]string{400: "the caller already likes the review (VALIDATION_ERROR); not a 409.", 404: "no review has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/reviews/{id}/like"), Auth: httpapi.AuthBearer, Actions: likeActions, Handler: h.unlike,
				Doc: httpapi.Doc{Summary: "Take a like of a review back", Response: httpapi.Liked{}, Errors: []int{400, 404},
					Why: map[int]string{400: "the caller does not like the review (VALIDATION_ERROR).", 404: "no review has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/books/{id}/reviews"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByBook,
				Doc: httpapi.Doc{Summary: "A book's reviews with its rating statistics", Response: bookPage{}, Errors: []int{400, 404},
					Why:   map[int]string{404: "no book has this id."},
					Query: append([]httpapi.Param{{Name: "sort", Type: "string", Enum: []string{"recent", "rating"}, About: "default recent"}}, cursor...)}},
			// The spec marks this list None; it is Optional so that a
			// signed-in caller sees isLiked, as on every review they can see.
			{Method: http.MethodGet, Path: httpapi.V1("/users/{username}/reviews"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByUser,
				Doc: httpapi.Doc{Summary: "A reader's reviews, newest first", Query: cursor, Response: httpapi.CursorBody[review]{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no account has this username."}}},
		},
	}
}
