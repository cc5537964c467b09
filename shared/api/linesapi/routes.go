// Package linesapi is the lines endpoint group: lines, their likes and
// replies, and the lists of lines (a book's, an author's, a club's and a
// challenge's). The lists live here rather than with books, users, clubs
// and challenges because they read lines data: this group's Lambda holds
// the grants for it.
package linesapi

import (
	"github.com/bookplatform/backend/shared/page"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/linejson"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/quota"
)

// handler serves the lines group.
type handler struct {
	lines *lines.Service
}

// Per-action limits (spec: Limits). A reply is a post like a line, so it
// counts against the same create_line limits as it counts against the
// same monthly quota.
var (
	postActions = []string{"create_line", "create_line_hourly"}
	likeActions = []string{"like"}
	feedActions = []string{"feed"}
)

// Group is the lines group. Its calls: GetItem for a line, a reply, a
// username claim, a club, a membership or a challenge; BatchGetItem for
// authors, books and isLiked; Query for the lists (GSI1, GSI2, GSI3),
// replies and a deleted line's replies and likes; TransactWriteItems for
// lines (with their club's or challenge's checks), replies and likes with
// their counters and the quota, granted by its parts (PutItem,
// UpdateItem, DeleteItem, ConditionCheckItem); BatchWriteItem to remove a deleted line's
// replies and likes.
func Group(d api.Deps) api.Group {
	h := &handler{lines: lines.NewService(lines.Deps{
		Store: dynamo.NewLines(d.Table), Clubs: dynamo.NewClubs(d.Table), Challenges: dynamo.NewChallenges(d.Table),
		Deps: posts.Deps{
			Users: dynamo.NewUsers(d.Table), Books: dynamo.NewBooks(d.Table), Briefs: dynamo.NewBriefs(d.Table), Quota: d.Quota, Now: d.Now,
		},
	})}
	cursor := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
	return api.Group{
		Name: "lines",
		// ConditionCheckItem: a line in a club or challenge checks the
		// membership or participation inside its transaction.
		Table: []string{"dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/lines"), Auth: httpapi.AuthBearer, Actions: postActions, Idempotent: true, Quota: quota.Posts, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Post a line about a book", Body: newLineRequest{}, Response: linejson.Line{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the free tier's monthly posts limit is reached (`details` is the MonthlyLimitReached body), or the caller is not a member of the club or a participant of the challenge the line is posted in.", 404: "no such book, club or challenge."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/lines/{id}"), Auth: httpapi.AuthBearer, Handler: h.get,
				Doc: httpapi.Doc{Summary: "A line with its author, book and the caller's like (a private club's line for its members)", Response: linejson.Line{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the line is in a private club the caller is not a member of.", 404: "no line has this id (also for a line of a deleted club, to anyone but its author)."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/lines/{id}"), Auth: httpapi.AuthBearer, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Edit one's line", Body: editLineRequest{}, Response: linejson.Edited{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is not the line's author.", 404: "no line has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/lines/{id}"), Auth: httpapi.AuthBearer, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Delete one's line with its replies and likes", Response: httpapi.Success{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller is not the line's author.", 404: "no line has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/lines/{id}/like"), Auth: httpapi.AuthBearer, Actions: likeActions, Handler: h.like,
				Doc: httpapi.Doc{Summary: "Like a line", Response: httpapi.Liked{}, Errors: []int{400, 403, 404},
					Why: map[int]string{400: "the caller already likes the line (VALIDATION_ERROR); not a 409.", 403: "the line is in a private club the caller is not a member of.", 404: "no line has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/lines/{id}/like"), Auth: httpapi.AuthBearer, Actions: likeActions, Handler: h.unlike,
				Doc: httpapi.Doc{Summary: "Take a like of a line back", Response: httpapi.Liked{}, Errors: []int{400, 404},
					Why: map[int]string{400: "the caller does not like the line (VALIDATION_ERROR).", 404: "no line has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/lines/{id}/replies"), Auth: httpapi.AuthBearer, Actions: postActions, Idempotent: true, Quota: quota.Posts, Handler: h.createReply,
				Doc: httpapi.Doc{Summary: "Reply to a line", Body: replyRequest{}, Response: linejson.Reply{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the free tier's monthly posts limit is reached (`details` is the MonthlyLimitReached body), or the line is in a private club the caller is not a member of.", 404: "no line has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/lines/{id}/replies"), Auth: httpapi.AuthBearer, Actions: feedActions, Handler: h.listReplies,
				Doc: httpapi.Doc{Summary: "A line's replies, oldest first", Query: cursor, Response: httpapi.CursorBody[linejson.Reply]{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the line is in a private club the caller is not a member of.", 404: "no line has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/lines/{lineId}/replies/{replyId}"), Auth: httpapi.AuthBearer, Handler: h.deleteReply,
				Doc: httpapi.Doc{Summary: "Delete one's reply", Response: httpapi.Success{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller is not the reply's author.", 404: "no such line, or no such reply on it."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/books/{id}/lines"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByBook,
				Doc: httpapi.Doc{Summary: "A book's lines, newest first", Query: cursor, Response: httpapi.CursorBody[linejson.Line]{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no book has this id."}}},
			// The spec marks this list None; it is Optional so that a
			// signed-in caller sees isLiked, as on every line they can see.
			{Method: http.MethodGet, Path: httpapi.V1("/users/{username}/lines"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByUser,
				Doc: httpapi.Doc{Summary: "An author's lines, newest first", Query: cursor, Response: httpapi.CursorBody[linejson.Line]{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no account has this username."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/lines/club/{clubId}"), Auth: httpapi.AuthBearer, Actions: feedActions, Handler: h.listByClub,
				Doc: httpapi.Doc{Summary: "A club's lines, newest first (a private club's for its members)", Query: cursor, Response: httpapi.CursorBody[linejson.CommunityLine]{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the club is private and the caller is not a member.", 404: "no club has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/lines/challenge/{challengeId}"), Auth: httpapi.AuthBearer, Actions: feedActions, Handler: h.listByChallenge,
				Doc: httpapi.Doc{Summary: "A challenge's lines, newest first", Query: cursor, Response: httpapi.CursorBody[linejson.CommunityLine]{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no challenge has this id."}}},
			// The same list as /lines/club/{clubId}, under the club: a
			// public club's lines need no token, a private one's a member's.
			{Method: http.MethodGet, Path: httpapi.V1("/clubs/{id}/lines"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByClub,
				Doc: httpapi.Doc{Summary: "A club's lines, newest first (a private club's for its members)", Query: cursor, Response: httpapi.CursorBody[linejson.CommunityLine]{}, Errors: []int{400, 401, 403, 404},
					Why: map[int]string{403: "the club is private and the caller is not a member (401 without a token).", 404: "no club has this id."}}},
		},
	}
}
