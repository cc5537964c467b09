// Package clubsapi is the clubs endpoint group: clubs, their reading
// lists and memberships, the reader's lists of clubs (/clubs/me/joined,
// /users/me/clubs, /users/{username}/clubs) and a store's
// (/stores/{slug}/clubs). A club's lines are served by
// the lines group (GET /clubs/{id}/lines), which holds the grants for
// lines data.
package clubsapi

import (
	"github.com/bookplatform/backend/shared/page"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/httpapi"
)

// handler serves the clubs group.
type handler struct {
	clubs *clubs.Service
}

// Offset-list limits of GET /clubs (spec: Other limits, default 20).
var listLimits = httpapi.OffsetLimits{Default: 20, Max: 100}

// Group is the clubs group. Its calls: GetItem for a club, a membership,
// a club book or a username claim; Query for a directory page, members,
// a reader's clubs, a reading list and a deleted club's leftovers;
// BatchGetItem for clubs, hosts, members' accounts and books;
// TransactWriteItems for every change with its counters (and directory
// entries), granted by its parts (PutItem, UpdateItem, DeleteItem,
// ConditionCheckItem); UpdateItem for an edit; BatchWriteItem to remove a deleted
// club's memberships and reading list.
func Group(d api.Deps) api.Group {
	h := &handler{clubs: Service(d)}
	array := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.MaxLimit, page.MaxLimit),
	}
	list := []httpapi.Param{
		{Name: "scope", Type: "string", Enum: []string{"all", "store", "user"}, About: "all clubs (default), store-hosted ones, or reader-hosted ones"},
		{Name: "storeId", Type: "string", About: "one store's clubs (implies scope=store)"},
		{Name: "isPublic", Type: "boolean", About: "only public (true) or only private (false) clubs"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
		httpapi.OffsetParam(),
	}
	storeList := append([]httpapi.Param{
		{Name: "isPublic", Type: "boolean", About: "only public (true) or only private (false) clubs"},
	}, array...)
	return api.Group{
		Name: "clubs",
		// ConditionCheckItem: a change by a host or moderator checks the
		// caller's role inside its transaction.
		Table: []string{"dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/clubs"), Auth: httpapi.AuthOptional, Handler: h.list,
				Doc: httpapi.Doc{Summary: "The club directory, newest first, with the exact total", Query: list, Response: clubsPage{}}},
			{Method: http.MethodPost, Path: httpapi.V1("/clubs"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Create a club (premium and bookstore tiers); the creator is its host", Body: createRequest{}, Response: clubView{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller's tier cannot create clubs, or a storeId names a store the caller neither owns nor staffs.", 404: "no store has the storeId."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/clubs/me/joined"), Auth: httpapi.AuthBearer, Handler: h.joined,
				Doc: httpapi.Doc{Summary: "The clubs the caller belongs to, with the caller's role, latest joined first", Query: array, Response: joinedClubList{}}},
			{Method: http.MethodGet, Path: httpapi.V1("/clubs/{id}"), Auth: httpapi.AuthOptional, Handler: h.get,
				Doc: httpapi.Doc{Summary: "A club with its reading list and the caller's membership (a private club for its members)", Response: clubView{}, Errors: []int{401, 403, 404},
					Why: map[int]string{403: "the club is private and the caller is not a member (401 without a token).", 404: "no club has this id."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/clubs/{id}"), Auth: httpapi.AuthBearer, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Change a club's name, description or visibility (its host)", Body: updateRequest{}, Response: editedClub{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is not the club's host.", 404: "no club has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/clubs/{id}"), Auth: httpapi.AuthBearer, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Delete a club with its memberships and reading list (its host); its lines stay their authors'", Response: httpapi.Success{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller is not the club's host.", 404: "no club has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/clubs/{id}/books"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.addBook,
				Doc: httpapi.Doc{Summary: "Put a book on the reading list (host or moderator)", Body: addBookRequest{}, Response: clubBook{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{400: "the book is already on the reading list, or the list holds 100 books (VALIDATION_ERROR); not a 409.", 403: "the caller is neither the club's host nor a moderator.", 404: "no club has this id, or no book has the bookId."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/clubs/{id}/books/{bookId}"), Auth: httpapi.AuthBearer, Handler: h.updateBook,
				Doc: httpapi.Doc{Summary: "Change a club book's status, dates or notes (host or moderator); bookId is the club-book id", Body: updateBookRequest{}, Response: editedClubBook{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is neither the club's host nor a moderator.", 404: "no club has this id, or the book is not on its reading list."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/clubs/{id}/books/{bookId}"), Auth: httpapi.AuthBearer, Handler: h.removeBook,
				Doc: httpapi.Doc{Summary: "Take a book off the reading list (host or moderator)", Response: httpapi.Success{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller is neither the club's host nor a moderator.", 404: "no club has this id, or the book is not on its reading list."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/clubs/{id}/join"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.join,
				Doc: httpapi.Doc{Summary: "Join a public club (a private club's host or moderators add members)", Response: joined{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{400: "the caller is already a member (VALIDATION_ERROR); not a 409.", 403: "the club is private: its host or a moderator adds members.", 404: "no club has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/clubs/{id}/leave"), Auth: httpapi.AuthBearer, Handler: h.leave,
				Doc: httpapi.Doc{Summary: "Leave a club (not its host)", Response: httpapi.Success{}, Errors: []int{400, 404},
					Why: map[int]string{400: "the caller is not a member, or is the host (the host cannot leave).", 404: "no club has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/clubs/{id}/members"), Auth: httpapi.AuthOptional, Handler: h.members,
				Doc: httpapi.Doc{Summary: "A club's members in the order they joined, with the member count (a private club's for its members)", Query: array, Response: membersPage{}, Errors: []int{401, 403, 404},
					Why: map[int]string{403: "the club is private and the caller is not a member (401 without a token).", 404: "no club has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/clubs/{id}/members"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.addMember,
				Doc: httpapi.Doc{Summary: "Add a member (host or moderator): how a private club gains members", Body: addMemberRequest{}, Response: joined{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{400: "the user is already a member (VALIDATION_ERROR); not a 409.", 403: "the caller is neither the club's host nor a moderator.", 404: "no club has this id, or no account has the userId."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/clubs/{id}/members/{memberId}/role"), Auth: httpapi.AuthBearer, Handler: h.setRole,
				Doc: httpapi.Doc{Summary: "Make a member a moderator or a member again (the host); memberId is a user id", Body: roleRequest{}, Response: roleChange{}, Errors: []int{400, 403, 404},
					Why: map[int]string{400: "a role other than moderator or member, or the host's own role.", 403: "the caller is not the club's host.", 404: "no club has this id, or the user is not a member of it."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/me/clubs"), Auth: httpapi.AuthBearer, Handler: h.mine,
				Doc: httpapi.Doc{Summary: "The clubs the caller belongs to, private ones included, latest joined first", Query: array, Response: myClubList{}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/{username}/clubs"), Auth: httpapi.AuthNone, Handler: h.ofUser,
				Doc: httpapi.Doc{Summary: "The public clubs a reader belongs to, latest joined first", Query: array, Response: userClubList{}, Errors: []int{404},
					Why: map[int]string{404: "no account has this username."}}},
			// Here rather than in the stores group: it reads the club
			// directories, whose grants this group's function holds.
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/clubs"), Auth: httpapi.AuthNone, Handler: h.ofStore,
				Doc: httpapi.Doc{Summary: "The clubs a store hosts, newest first, as GET /v1/clubs lists them (private ones with a listing's fields)",
					Query: storeList, Response: storeClubList{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no store has this slug."}}},
		},
	}
}
