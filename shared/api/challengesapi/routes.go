// Package challengesapi is the reading-challenges endpoint group: the
// challenge directory, challenges with their participants and progress,
// and the lists of challenges of a reader (/users/me/challenges,
// /users/{username}/challenges) and of a store
// (/stores/{slug}/challenges). The spec names only the base path and the
// listing fields; docs/decisions.md ("Challenges") records the design. A
// challenge's lines are served by the lines group.
package challengesapi

import (
	"github.com/bookplatform/backend/shared/page"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/httpapi"
)

// handler serves the challenges group.
type handler struct {
	challenges *challenges.Service
}

// Offset-list limits of GET /challenges, as for clubs.
var listLimits = httpapi.OffsetLimits{Default: 20, Max: 100}

// Group is the challenges group. Its calls: GetItem for a challenge, a
// participant or a username claim; Query for a directory page, the
// participant list, a reader's challenges and a deleted challenge's
// participants; BatchGetItem for challenges and accounts;
// TransactWriteItems for create, delete, join and leave with their
// counters (and directory entries), granted by its parts (PutItem,
// UpdateItem, DeleteItem, ConditionCheckItem); UpdateItem for an edit and progress;
// BatchWriteItem to remove a deleted challenge's participants.
func Group(d api.Deps) api.Group {
	h := &handler{challenges: Service(d)}
	cursor := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
	array := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.MaxLimit, page.MaxLimit),
	}
	list := []httpapi.Param{
		{Name: "storeId", Type: "string", About: "one store's challenges"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
		httpapi.OffsetParam(),
	}
	return api.Group{
		Name: "challenges",
		// ConditionCheckItem: a store's challenge checks in its creating
		// transaction that the store is not being deleted.
		Table: []string{"dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/challenges"), Auth: httpapi.AuthOptional, Handler: h.list,
				Doc: httpapi.Doc{Summary: "The challenge directory (one store's with storeId), newest first, with the exact total", Query: list, Response: challengesPage{}}},
			{Method: http.MethodPost, Path: httpapi.V1("/challenges"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Create a challenge (premium and bookstore tiers); the creator hosts it and is its first participant", Body: createRequest{}, Response: challengeView{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller's tier cannot create challenges, or a storeId names a store the caller neither owns nor staffs.", 404: "no store has the storeId."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/challenges/{id}"), Auth: httpapi.AuthOptional, Handler: h.get,
				Doc: httpapi.Doc{Summary: "A challenge with its host and the caller's progress", Response: challengeView{}, Errors: []int{404},
					Why: map[int]string{404: "no challenge has this id."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/challenges/{id}"), Auth: httpapi.AuthBearer, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Change a challenge (its host); the period stays in order", Body: updateRequest{}, Response: challenge{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is not the challenge's host.", 404: "no challenge has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/challenges/{id}"), Auth: httpapi.AuthBearer, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Delete a challenge with its participants (its host); its lines stay", Response: httpapi.Success{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller is not the challenge's host.", 404: "no challenge has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/challenges/{id}/join"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.join,
				Doc: httpapi.Doc{Summary: "Take part in a challenge", Response: joinedChallenge{}, Status: http.StatusCreated, Errors: []int{400, 404},
					Why: map[int]string{400: "the caller already takes part (VALIDATION_ERROR); not a 409.", 404: "no challenge has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/challenges/{id}/leave"), Auth: httpapi.AuthBearer, Handler: h.leave,
				Doc: httpapi.Doc{Summary: "Stop taking part (not the host)", Response: httpapi.Success{}, Errors: []int{400, 404},
					Why: map[int]string{400: "the caller does not take part, or is the host (the host cannot leave).", 404: "no challenge has this id."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/challenges/{id}/progress"), Auth: httpapi.AuthBearer, Handler: h.progress,
				Doc: httpapi.Doc{Summary: "Record the books finished so far toward the goal", Body: progressRequest{}, Response: progressed{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller has not joined the challenge.", 404: "no challenge has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/challenges/{id}/participants"), Auth: httpapi.AuthOptional, Handler: h.participants,
				Doc: httpapi.Doc{Summary: "A challenge's participants, most books finished first", Query: cursor, Response: httpapi.CursorBody[participant]{}, Errors: []int{404},
					Why: map[int]string{404: "no challenge has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/me/challenges"), Auth: httpapi.AuthBearer, Handler: h.mine,
				Doc: httpapi.Doc{Summary: "The challenges the caller takes part in, with their progress, latest joined first", Query: array, Response: myChallengeList{}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/{username}/challenges"), Auth: httpapi.AuthNone, Handler: h.ofUser,
				Doc: httpapi.Doc{Summary: "The challenges a reader takes part in, latest joined first", Query: array, Response: userChallengeList{}, Errors: []int{404},
					Why: map[int]string{404: "no account has this username."}}},
			// Here rather than in the stores group: it reads the challenge
			// directories, whose grants this group's function holds.
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/challenges"), Auth: httpapi.AuthNone, Handler: h.ofStore,
				Doc: httpapi.Doc{Summary: "The challenges a store hosts, newest first", Query: array, Response: storeChallengeList{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no store has this slug."}}},
		},
	}
}
