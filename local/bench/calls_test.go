package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// callsOut is where TestCallCounts writes its table for the report
// (`go run ./local/bench calls` sets it).
var callsOut = flag.String("calls-out", "", "write the DynamoDB calls table to this file")

// scenarioState carries ids and tokens from one step to the next.
type scenarioState struct {
	userID, username, email        string
	token, refresh                 string
	guestToken                     string
	migratedToken, migratedRefresh string
	bookID                         string // a book of benchCatalog
	lineID, replyID                string // the reader's line on bookID and a reply to it
	reviewID                       string // the reader's review of bookID
	clubID, clubLineID             string // the reader's club and the converted guest's line in it
	challengeID                    string // the reader's challenge
	// promote makes an account premium behind the API (no route does):
	// clubs and challenges are created by premium accounts.
	promote    func(userID string) error
	migratedID string // the converted guest's account
	book2ID    string // another book of benchCatalog
	wishlistID string // the reader's public wishlist
	noteID     string // the reader's note on bookID

	// Stores: a bookseller's account and store; what the scenario may
	// do beside the API (a tier change, a DNS record: no route does).
	sellerID, sellerToken string
	storeSlug, storeID    string
	upload                map[string]any // a presigned upload slot
	setCNAME              func(host, target string)
}

// step is one request of the scenario. route names the route-table entry
// ("METHOD /pattern") it exercises; the access log's route field must
// agree, so a step cannot silently hit another route.
type step struct {
	route string
	note  string
	want  int
	do    func(e *client, s *scenarioState) *response
	// before, when set, arranges state behind the API before the step's
	// calls are counted.
	before func(s *scenarioState) error
	// writes marks a GET that records a change (a custom domain's
	// status moving): the depth target of reads does not apply to it.
	writes bool
}

const password = "bench-password-1"

// scenario visits every route of every group in an order that a client
// could follow: sign up, use the account, end with logout. A new route
// without a step here fails TestCallScenarioCoversEveryRoute.
func scenario() []step {
	return []step{
		{route: "GET /health", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/health", nil, "")
		}},
		{route: "GET /openapi.json", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/openapi.json", nil, "")
		}},
		{route: "GET /docs", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/docs", nil, "")
		}},
		{route: "GET /docs/redoc.standalone.js", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/docs/redoc.standalone.js", nil, "")
		}},
		{route: "POST /v1/auth/signup", want: 201, do: func(e *client, s *scenarioState) *response {
			s.username, s.email = "bench_reader", "bench.reader@example.com"
			res := e.do("POST", "/v1/auth/signup", map[string]any{
				"username": s.username, "email": s.email, "password": password, "displayName": "Bench Reader",
			}, "")
			if u, ok := res.JSON["user"].(map[string]any); ok {
				s.userID, _ = u["id"].(string)
				s.token, _ = res.JSON["token"].(string)
				s.refresh, _ = res.JSON["refreshToken"].(string)
			}
			return res
		}},
		{route: "POST /v1/auth/login", want: 200, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/auth/login", map[string]any{"email": s.email, "password": password}, "")
			if t, ok := res.JSON["token"].(string); ok {
				s.token = t
				s.refresh, _ = res.JSON["refreshToken"].(string)
			}
			return res
		}},
		{route: "POST /v1/auth/login", note: "wrong password", want: 401, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/auth/login", map[string]any{"email": s.email, "password": "not-the-password"}, "")
		}},
		{route: "POST /v1/auth/refresh", want: 200, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": s.refresh}, "")
			if t, ok := res.JSON["token"].(string); ok {
				s.token = t
				s.refresh, _ = res.JSON["refreshToken"].(string)
			}
			return res
		}},
		{route: "POST /v1/auth/guest", want: 201, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/auth/guest", map[string]any{}, "")
			s.guestToken, _ = res.JSON["token"].(string)
			return res
		}},
		{route: "POST /v1/auth/migrate-guest", want: 200, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/auth/migrate-guest", map[string]any{
				"username": "bench_convert", "email": "bench.convert@example.com", "password": password, "displayName": "Converted",
			}, s.guestToken)
			s.migratedToken, _ = res.JSON["token"].(string)
			s.migratedRefresh, _ = res.JSON["refreshToken"].(string)
			if u, ok := res.JSON["user"].(map[string]any); ok {
				s.migratedID, _ = u["id"].(string)
			}
			return res
		}},
		{route: "GET /v1/users/me", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/me", nil, s.token)
		}},
		{route: "GET /v1/users/me", note: "no token", want: 401, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/users/me", nil, "")
		}},
		{route: "PUT /v1/users/me", note: "bio", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/users/me", map[string]any{"bio": "Reads benchmarks."}, s.token)
		}},
		{route: "PUT /v1/users/me", note: "new username", want: 200, do: func(e *client, s *scenarioState) *response {
			s.username = "bench_reader2"
			return e.do("PUT", "/v1/users/me", map[string]any{"username": s.username}, s.token)
		}},
		{route: "PUT /v1/users/me/password", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/users/me/password", map[string]any{"currentPassword": password, "newPassword": password + "x"}, s.token)
		}},
		{route: "POST /v1/users/me/avatar", note: "1 KB PNG", want: 200, do: func(e *client, s *scenarioState) *response {
			body, ctype := avatarUpload()
			return e.raw("POST", "/v1/users/me/avatar", ctype, body, s.token)
		}},
		{route: "GET /v1/users/{userId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/"+s.userID, nil, "")
		}},
		{route: "GET /v1/users/{userId}", note: "unknown id", want: 404, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/users/00000000-0000-0000-0000-000000000000", nil, "")
		}},
		{route: "GET /v1/users/username/{username}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/username/"+s.username, nil, "")
		}},
		{route: "GET /v1/books", note: "two words", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/books?q=harry+pot", nil, "")
		}},
		{route: "GET /v1/books", note: "signed in", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/books?q=tolkien&limit=5", nil, s.token)
		}},
		{route: "GET /v1/books", note: "an ISBN", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/books?q=0-306-40615-2", nil, "")
		}},
		{route: "GET /v1/books", note: "limit 51", want: 400, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/books?q=harry&limit=51", nil, "")
		}},
		{route: "GET /v1/books/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/books/"+s.bookID, nil, "")
		}},
		{route: "GET /v1/books/{id}", note: "signed in", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/books/"+s.bookID, nil, s.token)
		}},
		{route: "GET /v1/books/{id}", note: "unknown id", want: 404, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/books/00000000-0000-4000-8000-000000000000", nil, "")
		}},
		{route: "GET /v1/books/isbn/{isbn}", note: "ISBN-10", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/books/isbn/0-306-40615-2", nil, "")
		}},
		{route: "GET /v1/books/isbn/{isbn}", note: "signed in", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/books/isbn/9780306406157", nil, s.token)
		}},
		{route: "GET /v1/books/isbn/{isbn}", note: "bad check digit", want: 400, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/books/isbn/9780306406158", nil, "")
		}},
		// Lines: the reader posts, the converted guest likes and replies.
		{route: "POST /v1/lines", want: 201, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/lines", map[string]any{"bookId": s.bookID, "content": "Measured, line by line.", "pageNumber": 42}, s.token)
			s.lineID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "POST /v1/lines", note: "unknown book", want: 404, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/lines", map[string]any{"bookId": "00000000-0000-4000-8000-000000000000", "content": "Lost."}, s.token)
		}},
		{route: "GET /v1/lines/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/lines/"+s.lineID, nil, s.migratedToken)
		}},
		{route: "GET /v1/lines/{id}", note: "unknown id", want: 404, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/lines/00000000-0000-4000-8000-000000000000", nil, s.token)
		}},
		{route: "PUT /v1/lines/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/lines/"+s.lineID, map[string]any{"content": "Measured again."}, s.token)
		}},
		{route: "PUT /v1/lines/{id}", note: "not the author", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/lines/"+s.lineID, map[string]any{"content": "Mine now."}, s.migratedToken)
		}},
		{route: "POST /v1/lines/{id}/like", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/lines/"+s.lineID+"/like", nil, s.migratedToken)
		}},
		{route: "POST /v1/lines/{id}/like", note: "already liked", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/lines/"+s.lineID+"/like", nil, s.migratedToken)
		}},
		{route: "DELETE /v1/lines/{id}/like", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/lines/"+s.lineID+"/like", nil, s.migratedToken)
		}},
		{route: "POST /v1/lines/{id}/like", note: "like again", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/lines/"+s.lineID+"/like", nil, s.migratedToken)
		}},
		{route: "POST /v1/lines/{id}/replies", want: 201, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/lines/"+s.lineID+"/replies", map[string]any{"content": "Seconded."}, s.migratedToken)
			s.replyID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "POST /v1/lines/{id}/replies", note: "second reply", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/lines/"+s.lineID+"/replies", map[string]any{"content": "Thanks."}, s.token)
		}},
		{route: "GET /v1/lines/{id}/replies", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/lines/"+s.lineID+"/replies", nil, s.token)
		}},
		{route: "DELETE /v1/lines/{lineId}/replies/{replyId}", note: "not the author", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/lines/"+s.lineID+"/replies/"+s.replyID, nil, s.token)
		}},
		{route: "DELETE /v1/lines/{lineId}/replies/{replyId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/lines/"+s.lineID+"/replies/"+s.replyID, nil, s.migratedToken)
		}},
		{route: "GET /v1/books/{id}/lines", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/books/"+s.bookID+"/lines", nil, "")
		}},
		{route: "GET /v1/books/{id}/lines", note: "signed in", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/books/"+s.bookID+"/lines?limit=10", nil, s.migratedToken)
		}},
		{route: "GET /v1/books/{id}/lines", note: "unknown book", want: 404, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/books/00000000-0000-4000-8000-000000000000/lines", nil, "")
		}},
		{route: "GET /v1/users/{username}/lines", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/"+s.username+"/lines", nil, "")
		}},
		{route: "GET /v1/users/{username}/lines", note: "signed in", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/"+s.username+"/lines", nil, s.migratedToken)
		}},
		{route: "DELETE /v1/lines/{id}", note: "not the author", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/lines/"+s.lineID, nil, s.migratedToken)
		}},
		{route: "DELETE /v1/lines/{id}", note: "a like, a reply", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/lines/"+s.lineID, nil, s.token)
		}},
		// Reviews: at most 5 review writes by one user, create_review's hourly limit.
		{route: "POST /v1/reviews", note: "create", want: 201, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/reviews", map[string]any{"bookId": s.bookID, "rating": 4, "content": "Benchmarked."}, s.token)
			s.reviewID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "POST /v1/reviews", note: "again: update", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/reviews", map[string]any{"bookId": s.bookID, "rating": 5, "content": "Benchmarked twice."}, s.token)
		}},
		{route: "POST /v1/reviews", note: "rating 2.5", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/reviews", map[string]any{"bookId": s.bookID, "rating": 2.5}, s.token)
		}},
		{route: "GET /v1/reviews/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/reviews/"+s.reviewID, nil, s.token)
		}},
		{route: "GET /v1/reviews/{id}", note: "unknown id", want: 404, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/reviews/00000000-0000-4000-8000-000000000000", nil, s.token)
		}},
		{route: "PUT /v1/reviews/{id}", note: "new rating", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/reviews/"+s.reviewID, map[string]any{"rating": 3}, s.token)
		}},
		{route: "PUT /v1/reviews/{id}", note: "not the author", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/reviews/"+s.reviewID, map[string]any{"rating": 1}, s.migratedToken)
		}},
		{route: "POST /v1/reviews/{id}/like", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/reviews/"+s.reviewID+"/like", nil, s.migratedToken)
		}},
		{route: "POST /v1/reviews/{id}/like", note: "already liked", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/reviews/"+s.reviewID+"/like", nil, s.migratedToken)
		}},
		// Reports: the converted guest reports the reader's review.
		// With an Idempotency-Key: the router keeps the answer (PutItem),
		// replays it (GetItem) and releases the key of a refusal
		// (DeleteItem), with the function's grants.
		{route: "POST /v1/reports", note: "a review, keyed", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.keyed("bench-report-1").do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": s.reviewID, "reason": "Benchmarked spam."}, s.migratedToken)
		}},
		{route: "POST /v1/reports", note: "retry, same key", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.keyed("bench-report-1").do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": s.reviewID, "reason": "Benchmarked spam."}, s.migratedToken)
		}},
		{route: "POST /v1/reports", note: "again", want: 409, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": s.reviewID, "reason": "Still spam."}, s.migratedToken)
		}},
		{route: "POST /v1/reports", note: "one's own, keyed", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.keyed("bench-report-2").do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": s.reviewID, "reason": "Mine."}, s.token)
		}},
		{route: "GET /v1/books/{id}/reviews", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/books/"+s.bookID+"/reviews", nil, "")
		}},
		{route: "GET /v1/books/{id}/reviews", note: "signed in, rating", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/books/"+s.bookID+"/reviews?sort=rating&limit=10", nil, s.migratedToken)
		}},
		{route: "GET /v1/books/{id}/reviews", note: "unknown book", want: 404, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/books/00000000-0000-4000-8000-000000000000/reviews", nil, "")
		}},
		{route: "GET /v1/users/{username}/reviews", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/"+s.username+"/reviews", nil, "")
		}},
		{route: "GET /v1/users/{username}/reviews", note: "signed in", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/"+s.username+"/reviews", nil, s.migratedToken)
		}},
		{route: "DELETE /v1/reviews/{id}/like", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/reviews/"+s.reviewID+"/like", nil, s.migratedToken)
		}},
		{route: "POST /v1/reviews/{id}/like", note: "like again", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/reviews/"+s.reviewID+"/like", nil, s.migratedToken)
		}},
		{route: "DELETE /v1/reviews/{id}", note: "not the author", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/reviews/"+s.reviewID, nil, s.migratedToken)
		}},
		{route: "DELETE /v1/reviews/{id}", note: "with a like", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/reviews/"+s.reviewID, nil, s.token)
		}},
		// Wishlists: the reader (free tier: one wishlist) keeps a public one.
		{route: "POST /v1/wishlists", want: 201, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/wishlists", map[string]any{"name": "Bench picks", "isPublic": true}, s.token)
			s.wishlistID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "POST /v1/wishlists", note: "free tier's limit", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/wishlists", map[string]any{"name": "One too many"}, s.token)
		}},
		{route: "GET /v1/wishlists", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/wishlists", nil, s.token)
		}},
		{route: "PUT /v1/wishlists/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/wishlists/"+s.wishlistID, map[string]any{"description": "Measured."}, s.token)
		}},
		{route: "PUT /v1/wishlists/{id}", note: "not the owner", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/wishlists/"+s.wishlistID, map[string]any{"name": "Mine now"}, s.migratedToken)
		}},
		{route: "POST /v1/wishlists/{id}/items", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/wishlists/"+s.wishlistID+"/items", map[string]any{"bookId": s.bookID, "priority": 1, "notes": "first"}, s.token)
		}},
		{route: "POST /v1/wishlists/{id}/items", note: "second book", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/wishlists/"+s.wishlistID+"/items", map[string]any{"bookId": s.book2ID}, s.token)
		}},
		{route: "POST /v1/wishlists/{id}/items", note: "same book again", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/wishlists/"+s.wishlistID+"/items", map[string]any{"bookId": s.bookID}, s.token)
		}},
		{route: "PUT /v1/wishlists/{id}/items/{itemId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/wishlists/"+s.wishlistID+"/items/"+s.book2ID, map[string]any{"priority": 2}, s.token)
		}},
		{route: "PUT /v1/wishlists/{id}/items/{itemId}", note: "not the owner", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/wishlists/"+s.wishlistID+"/items/"+s.book2ID, map[string]any{"priority": 3}, s.migratedToken)
		}},
		{route: "GET /v1/wishlists/{id}", note: "2 books", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/wishlists/"+s.wishlistID, nil, "")
		}},
		{route: "GET /v1/wishlists/{id}", note: "signed in", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/wishlists/"+s.wishlistID, nil, s.token)
		}},
		{route: "GET /v1/wishlists/{id}", note: "unknown id", want: 404, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/wishlists/00000000-0000-4000-8000-000000000000", nil, s.token)
		}},
		{route: "GET /v1/users/{username}/wishlists", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/"+s.username+"/wishlists", nil, "")
		}},
		{route: "DELETE /v1/wishlists/{id}/items/{itemId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/wishlists/"+s.wishlistID+"/items/"+s.book2ID, nil, s.token)
		}},
		{route: "DELETE /v1/wishlists/{id}/items/{itemId}", note: "not on it", want: 404, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/wishlists/"+s.wishlistID+"/items/"+s.book2ID, nil, s.token)
		}},
		{route: "DELETE /v1/wishlists/{id}", note: "not the owner", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/wishlists/"+s.wishlistID, nil, s.migratedToken)
		}},
		{route: "DELETE /v1/wishlists/{id}", note: "with one book", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/wishlists/"+s.wishlistID, nil, s.token)
		}},
		// Follows: the converted guest follows the reader.
		{route: "POST /v1/follows/users/{userId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/follows/users/"+s.userID, nil, s.migratedToken)
		}},
		{route: "POST /v1/follows/users/{userId}", note: "already following", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/follows/users/"+s.userID, nil, s.migratedToken)
		}},
		{route: "GET /v1/follows/users/{userId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/follows/users/"+s.userID, nil, s.migratedToken)
		}},
		{route: "GET /v1/follows/followers", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/follows/followers", nil, s.token)
		}},
		{route: "GET /v1/follows/following", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/follows/following", nil, s.migratedToken)
		}},
		{route: "DELETE /v1/follows/users/{userId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/follows/users/"+s.userID, nil, s.migratedToken)
		}},
		{route: "DELETE /v1/follows/users/{userId}", note: "not following", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/follows/users/"+s.userID, nil, s.migratedToken)
		}},
		// Notes: private to the reader.
		{route: "POST /v1/notes", want: 201, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/notes", map[string]any{"bookId": s.bookID, "content": "Note to self: measure.", "pageNumber": 12}, s.token)
			s.noteID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "GET /v1/notes", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/notes", nil, s.token)
		}},
		{route: "GET /v1/notes", note: "one book", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/notes?bookId="+s.bookID, nil, s.token)
		}},
		{route: "GET /v1/notes/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/notes/"+s.noteID, nil, s.token)
		}},
		{route: "GET /v1/notes/{id}", note: "another reader", want: 404, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/notes/"+s.noteID, nil, s.migratedToken)
		}},
		{route: "PUT /v1/notes/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/notes/"+s.noteID, map[string]any{"content": "Measured.", "pageNumber": nil}, s.token)
		}},
		{route: "DELETE /v1/notes/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/notes/"+s.noteID, nil, s.token)
		}},
		// Clubs: the reader (made premium) hosts, the converted guest joins.
		{route: "POST /v1/clubs", note: "premium", want: 201, before: func(s *scenarioState) error { return s.promote(s.userID) }, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/clubs", map[string]any{"name": "Bench club", "description": "Measured reading.", "isPublic": true}, s.token)
			s.clubID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "POST /v1/clubs", note: "free tier", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/clubs", map[string]any{"name": "Not mine"}, s.migratedToken)
		}},
		{route: "GET /v1/clubs", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/clubs", nil, "")
		}},
		{route: "GET /v1/clubs", note: "signed in, public", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/clubs?isPublic=true&limit=10", nil, s.migratedToken)
		}},
		{route: "POST /v1/clubs/{id}/join", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/clubs/"+s.clubID+"/join", nil, s.migratedToken)
		}},
		{route: "POST /v1/clubs/{id}/join", note: "already a member", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/clubs/"+s.clubID+"/join", nil, s.migratedToken)
		}},
		{route: "DELETE /v1/clubs/{id}/leave", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/clubs/"+s.clubID+"/leave", nil, s.migratedToken)
		}},
		{route: "DELETE /v1/clubs/{id}/leave", note: "the host", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/clubs/"+s.clubID+"/leave", nil, s.token)
		}},
		{route: "POST /v1/clubs/{id}/members", note: "the host adds", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/clubs/"+s.clubID+"/members", map[string]any{"userId": migratedID(e, s)}, s.token)
		}},
		{route: "PUT /v1/clubs/{id}/members/{memberId}/role", note: "moderator", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/clubs/"+s.clubID+"/members/"+migratedID(e, s)+"/role", map[string]any{"role": "moderator"}, s.token)
		}},
		{route: "PUT /v1/clubs/{id}", note: "private", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/clubs/"+s.clubID, map[string]any{"name": "Bench club, closed", "isPublic": false}, s.token)
		}},
		{route: "PUT /v1/clubs/{id}", note: "name only", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/clubs/"+s.clubID, map[string]any{"description": "Still measured."}, s.token)
		}},
		{route: "POST /v1/clubs/{id}/books", note: "a moderator", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/clubs/"+s.clubID+"/books", map[string]any{"bookId": s.bookID, "status": "current", "startDate": "2026-11-01", "endDate": "2026-11-30"}, s.migratedToken)
		}},
		{route: "PUT /v1/clubs/{id}/books/{bookId}", note: "end date alone", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/clubs/"+s.clubID+"/books/"+s.bookID, map[string]any{"endDate": "2026-12-15", "notes": "Two more weeks."}, s.token)
		}},
		{route: "GET /v1/clubs/{id}", note: "a member, private", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/clubs/"+s.clubID, nil, s.migratedToken)
		}},
		{route: "GET /v1/clubs/{id}", note: "no token, private", want: 401, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/clubs/"+s.clubID, nil, "")
		}},
		{route: "GET /v1/clubs/{id}/members", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/clubs/"+s.clubID+"/members", nil, s.token)
		}},
		{route: "GET /v1/clubs/me/joined", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/clubs/me/joined", nil, s.migratedToken)
		}},
		{route: "GET /v1/users/me/clubs", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/me/clubs", nil, s.token)
		}},
		{route: "GET /v1/users/{username}/clubs", note: "public only", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/"+s.username+"/clubs", nil, "")
		}},
		{route: "POST /v1/lines", note: "in a club", want: 201, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/lines", map[string]any{"bookId": s.bookID, "content": "Said in the club.", "clubId": s.clubID}, s.migratedToken)
			s.clubLineID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "GET /v1/lines/club/{clubId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/lines/club/"+s.clubID, nil, s.token)
		}},
		{route: "GET /v1/clubs/{id}/lines", note: "a member", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/clubs/"+s.clubID+"/lines", nil, s.migratedToken)
		}},
		{route: "GET /v1/lines/{id}", note: "a private club's", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/lines/"+s.clubLineID, nil, s.token)
		}},
		{route: "DELETE /v1/clubs/{id}/books/{bookId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/clubs/"+s.clubID+"/books/"+s.bookID, nil, s.token)
		}},
		{route: "DELETE /v1/clubs/{id}", note: "not the host", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/clubs/"+s.clubID, nil, s.migratedToken)
		}},
		{route: "DELETE /v1/clubs/{id}", note: "2 members", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/clubs/"+s.clubID, nil, s.token)
		}},
		// Challenges: the reader hosts, the converted guest takes part.
		{route: "POST /v1/challenges", want: 201, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/challenges", map[string]any{"name": "Bench challenge", "goal": 12, "startDate": "2026-01-01", "endDate": "2026-12-31"}, s.token)
			s.challengeID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "GET /v1/challenges", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/challenges", nil, "")
		}},
		{route: "GET /v1/challenges/{id}", note: "signed in", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/challenges/"+s.challengeID, nil, s.migratedToken)
		}},
		{route: "PUT /v1/challenges/{id}", note: "start date alone", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/challenges/"+s.challengeID, map[string]any{"startDate": "2026-02-01", "goal": 10}, s.token)
		}},
		{route: "POST /v1/challenges/{id}/join", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/challenges/"+s.challengeID+"/join", nil, s.migratedToken)
		}},
		{route: "PUT /v1/challenges/{id}/progress", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/challenges/"+s.challengeID+"/progress", map[string]any{"progress": 3}, s.migratedToken)
		}},
		{route: "GET /v1/challenges/{id}/participants", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/challenges/"+s.challengeID+"/participants", nil, "")
		}},
		{route: "POST /v1/lines", note: "in a challenge", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/lines", map[string]any{"bookId": s.bookID, "content": "Three down.", "challengeId": s.challengeID}, s.migratedToken)
		}},
		{route: "GET /v1/lines/challenge/{challengeId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/lines/challenge/"+s.challengeID, nil, s.token)
		}},
		{route: "GET /v1/users/me/challenges", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/me/challenges", nil, s.migratedToken)
		}},
		{route: "GET /v1/users/{username}/challenges", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/"+s.username+"/challenges", nil, "")
		}},
		{route: "DELETE /v1/challenges/{id}/leave", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/challenges/"+s.challengeID+"/leave", nil, s.migratedToken)
		}},
		{route: "DELETE /v1/challenges/{id}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/challenges/"+s.challengeID, nil, s.token)
		}},
		// Stores: a bookseller opens a store; the reader (s.token) is a
		// customer and, for a while, staff.
		{route: "POST /v1/stores", want: 201, do: func(e *client, s *scenarioState) *response {
			s.storeSlug = "bench-books"
			res := e.do("POST", "/v1/stores", map[string]any{
				"name": "Bench Books", "slug": s.storeSlug, "description": "Measured.", "addressLine1": "1005 W Burnside St",
				"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US", "phone": "+1 503 555 0100",
				"email": "bench@example.com", "primaryColor": "#336699", "hours": map[string]any{"monday": "9-17"}, "taxRate": 0.0,
			}, s.sellerToken)
			s.storeID, _ = res.JSON["id"].(string)
			return res
		}},
		{route: "POST /v1/stores", note: "free tier", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/stores", map[string]any{"name": "No", "slug": "no-shop"}, s.token)
		}},
		{route: "POST /v1/stores", note: "a second store, slug taken", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/stores", map[string]any{
				"name": "Bench Books", "slug": s.storeSlug, "addressLine1": "1005 W Burnside St",
				"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US",
			}, s.sellerToken)
		}},
		{route: "GET /v1/stores/my", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/stores/my", nil, s.sellerToken)
		}},
		{route: "GET /v1/stores/{slug}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/stores/"+s.storeSlug, nil, "")
		}},
		{route: "GET /v1/stores/{slug}", note: "unknown slug", want: 404, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/stores/no-such-shop", nil, "")
		}},
		{route: "PUT /v1/stores/{slug}", note: "name and hours", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/stores/"+s.storeSlug, map[string]any{"name": "Bench Books & Coffee", "hours": map[string]any{"sunday": "Closed"}}, s.sellerToken)
		}},
		{route: "PUT /v1/stores/{slug}", note: "not the owner", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/stores/"+s.storeSlug, map[string]any{"name": "Mine"}, s.token)
		}},
		{route: "GET /v1/stores", note: "25 miles", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/stores?latitude=45.5231&longitude=-122.6765", nil, "")
		}},
		{route: "GET /v1/stores", note: "by name", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/stores?limit=5", nil, "")
		}},
		{route: "GET /v1/stores", note: "700 miles (ranges)", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/stores?latitude=45.5231&longitude=-122.6765&radius=700", nil, "")
		}},
		{route: "GET /v1/stores", note: "near the pole (ranges)", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/stores?latitude=89.4&longitude=0&radius=100", nil, "")
		}},
		// The store hosts a club and a challenge; the reader follows it.
		{route: "POST /v1/clubs", note: "store-hosted", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/clubs", map[string]any{"name": "Bench Books club", "storeId": s.storeID}, s.sellerToken)
		}},
		{route: "POST /v1/challenges", note: "store-hosted", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/challenges", map[string]any{"name": "Bench Books challenge", "goal": 6, "startDate": "2026-01-01", "endDate": "2026-06-30", "storeId": s.storeID}, s.sellerToken)
		}},
		{route: "GET /v1/stores/{slug}/clubs", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/stores/"+s.storeSlug+"/clubs", nil, "")
		}},
		{route: "GET /v1/stores/{slug}/clubs", note: "unknown slug", want: 404, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/stores/no-such-shop/clubs", nil, "")
		}},
		{route: "GET /v1/stores/{slug}/challenges", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/stores/"+s.storeSlug+"/challenges", nil, s.token)
		}},
		{route: "POST /v1/follows/stores/{storeId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/follows/stores/"+s.storeID, nil, s.token)
		}},
		{route: "POST /v1/follows/stores/{storeId}", note: "already following", want: 400, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/follows/stores/"+s.storeID, nil, s.token)
		}},
		{route: "GET /v1/follows/stores/{storeId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/follows/stores/"+s.storeID, nil, s.token)
		}},
		{route: "GET /v1/follows/stores", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/follows/stores", nil, s.token)
		}},
		{route: "DELETE /v1/follows/stores/{storeId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/follows/stores/"+s.storeID, nil, s.token)
		}},
		{route: "POST /v1/follows/stores/{storeId}", note: "for the delete", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/follows/stores/"+s.storeID, nil, s.token)
		}},
		{route: "GET /v1/stores/{slug}/website-config", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/stores/"+s.storeSlug+"/website-config", nil, "")
		}},
		{route: "POST /v1/stores/{slug}/logo", note: "1 KB PNG", want: 200, do: func(e *client, s *scenarioState) *response {
			body, ctype := imageUpload("logo")
			return e.raw("POST", "/v1/stores/"+s.storeSlug+"/logo", ctype, body, s.sellerToken)
		}},
		{route: "POST /v1/stores/{slug}/banner", note: "1 KB PNG", want: 200, do: func(e *client, s *scenarioState) *response {
			body, ctype := imageUpload("banner")
			return e.raw("POST", "/v1/stores/"+s.storeSlug+"/banner", ctype, body, s.sellerToken)
		}},
		{route: "POST /v1/stores/{slug}/logo/upload-url", want: 200, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/stores/"+s.storeSlug+"/logo/upload-url", nil, s.sellerToken)
			s.upload = res.JSON
			return res
		}},
		{route: "PUT /v1/stores/{slug}/logo", note: "presigned", want: 200, do: func(e *client, s *scenarioState) *response {
			putUpload(s.upload)
			return e.do("PUT", "/v1/stores/"+s.storeSlug+"/logo", map[string]any{"uploadKey": s.upload["uploadKey"]}, s.sellerToken)
		}},
		{route: "POST /v1/stores/{slug}/banner/upload-url", want: 200, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/stores/"+s.storeSlug+"/banner/upload-url", nil, s.sellerToken)
			s.upload = res.JSON
			return res
		}},
		{route: "PUT /v1/stores/{slug}/banner", note: "presigned", want: 200, do: func(e *client, s *scenarioState) *response {
			putUpload(s.upload)
			return e.do("PUT", "/v1/stores/"+s.storeSlug+"/banner", map[string]any{"uploadKey": s.upload["uploadKey"]}, s.sellerToken)
		}},
		{route: "POST /v1/users/me/avatar/upload-url", want: 200, do: func(e *client, s *scenarioState) *response {
			res := e.do("POST", "/v1/users/me/avatar/upload-url", nil, s.token)
			s.upload = res.JSON
			return res
		}},
		{route: "PUT /v1/users/me/avatar", note: "presigned", want: 200, do: func(e *client, s *scenarioState) *response {
			putUpload(s.upload)
			return e.do("PUT", "/v1/users/me/avatar", map[string]any{"uploadKey": s.upload["uploadKey"]}, s.token)
		}},
		{route: "POST /v1/stores/{slug}/staff", want: 201, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/stores/"+s.storeSlug+"/staff", map[string]any{"email": s.email}, s.sellerToken)
		}},
		{route: "GET /v1/stores/{slug}/staff", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/stores/"+s.storeSlug+"/staff", nil, s.sellerToken)
		}},
		{route: "GET /v1/stores/{slug}/staff", note: "staff, not owner", want: 403, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/stores/"+s.storeSlug+"/staff", nil, s.token)
		}},
		{route: "PUT /v1/users/me/home-store", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": s.storeID}, s.token)
		}},
		{route: "GET /v1/users/me/home-store", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/users/me/home-store", nil, s.token)
		}},
		{route: "DELETE /v1/users/me/home-store", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/users/me/home-store", nil, s.token)
		}},
		{route: "PUT /v1/users/me/home-store", note: "again, for the delete", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": s.storeID}, s.token)
		}},
		{route: "POST /v1/stores/{slug}/domain/verify", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/stores/"+s.storeSlug+"/domain/verify", map[string]any{"domain": "books.bench.example.com"}, s.sellerToken)
		}},
		{route: "GET /v1/stores/{slug}/domain/status", note: "still PENDING", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("GET", "/v1/stores/"+s.storeSlug+"/domain/status", nil, s.sellerToken)
		}},
		{route: "GET /v1/stores/{slug}/domain/status", note: "moves to VERIFIED", want: 200, writes: true, do: func(e *client, s *scenarioState) *response {
			s.setCNAME("books.bench.example.com", s.storeSlug+"."+config.DefaultStoreDomainTarget)
			return e.do("GET", "/v1/stores/"+s.storeSlug+"/domain/status", nil, s.sellerToken)
		}},
		{route: "GET /v1/stores/lookup-by-domain", want: 200, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/stores/lookup-by-domain?domain=books.bench.example.com", nil, "")
		}},
		{route: "GET /v1/stores/lookup-by-domain", note: "unknown domain", want: 404, do: func(e *client, _ *scenarioState) *response {
			return e.do("GET", "/v1/stores/lookup-by-domain?domain=nobody.example.com", nil, "")
		}},
		{route: "DELETE /v1/stores/{slug}/domain", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/stores/"+s.storeSlug+"/domain", nil, s.sellerToken)
		}},
		{route: "DELETE /v1/stores/{slug}/staff/{userId}", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/stores/"+s.storeSlug+"/staff/"+s.userID, nil, s.sellerToken)
		}},
		{route: "DELETE /v1/stores/{slug}", note: "with dependents", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("DELETE", "/v1/stores/"+s.storeSlug, nil, s.sellerToken)
		}},
		{route: "POST /v1/auth/logout", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/auth/logout", map[string]any{}, s.token)
		}},
		{route: "POST /v1/auth/logout", note: "with refresh_token", want: 200, do: func(e *client, s *scenarioState) *response {
			return e.do("POST", "/v1/auth/logout", map[string]any{"refresh_token": s.migratedRefresh}, s.migratedToken)
		}},
	}
}

// migratedID is the converted guest's account id, read from its token's
// claims (the scenario never asked for it).
func migratedID(_ *client, s *scenarioState) string {
	parts := strings.Split(s.migratedToken, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		UserID string `json:"userId"`
	}
	_ = json.Unmarshal(payload, &claims)
	return claims.UserID
}

// routeKeys lists every route of every group, as the access log names them.
func routeKeys() []string {
	var keys []string
	for _, r := range groups.Routes() {
		keys = append(keys, r.Method+" "+r.Path)
	}
	return keys
}

func TestCallScenarioCoversEveryRoute(t *testing.T) {
	covered := map[string]bool{}
	for _, s := range scenario() {
		covered[s.route] = true
	}
	known := map[string]bool{}
	for _, k := range routeKeys() {
		known[k] = true
		if !covered[k] {
			t.Errorf("route %s has no step in local/bench/calls_test.go scenario(): add one so its DynamoDB calls are measured", k)
		}
	}
	for k := range covered {
		if !known[k] {
			t.Errorf("scenario step names %s, which is not in any route table", k)
		}
	}
}

// callRuns is how often the scenario runs, each time on a fresh table.
// Depth is read from call start and end times, and two calls launched
// side by side look sequential when the second goroutine starts after the
// first call has already returned (a busy machine, a 1 ms DynamoDB Local
// call). The minimum over several runs is the depth the code allows; the
// maximum shows what scheduling added.
const callRuns = 5

// observation is one step of one run.
type observation struct {
	status, calls, depth int
	chain                string
}

// TestCallCounts runs the scenario against DynamoDB Local and reports, per
// request, the DynamoDB calls and their sequential depth as the router's
// access log records them (shared/callstats), with the operations in the
// order they ran. It fails when a step gets an unexpected status or an
// authenticated read exceeds its depth target in every run, and holds the
// grants to the calls both ways: a step whose calls need an IAM action
// its function is not granted fails (checkGranted), and so does a
// function granted an action that no step it serves needed in any run
// (checkUsed).
func TestCallCounts(t *testing.T) {
	steps := scenario()
	obs := make([][]observation, len(steps))
	used := map[string]map[string]bool{} // function -> IAM actions its steps needed
	for range callRuns {
		for i, o := range runScenario(t, steps, used) {
			obs[i] = append(obs[i], o)
		}
		if t.Failed() {
			break
		}
	}

	if !t.Failed() {
		checkUsed(t, used)
	}

	authRoutes := map[string]httpapi.Auth{}
	for _, r := range groups.Routes() {
		authRoutes[r.Method+" "+r.Path] = r.Auth
	}
	var table strings.Builder
	fmt.Fprintf(&table, "   %-38s %-19s %6s %5s %7s   %s\n", "route", "case", "status", "calls", "depth", "operations (+ = concurrent, -> = after)")
	for i, s := range steps {
		if len(obs[i]) == 0 {
			continue
		}
		best, worst := obs[i][0], obs[i][0]
		minCalls, maxCalls := best.calls, best.calls
		for _, o := range obs[i][1:] {
			if o.depth < best.depth {
				best = o
			}
			worst.depth = max(worst.depth, o.depth)
			minCalls, maxCalls = min(minCalls, o.calls), max(maxCalls, o.calls)
		}
		calls := strconv.Itoa(minCalls)
		if maxCalls != minCalls {
			calls += "-" + strconv.Itoa(maxCalls)
		}
		depth := strconv.Itoa(best.depth)
		if worst.depth != best.depth {
			depth += " (" + strconv.Itoa(worst.depth) + ")"
		}
		note := s.note
		if note == "" {
			note = "ok"
		}
		fmt.Fprintf(&table, "   %-38s %-19s %6d %5s %7s   %s\n", s.route, note, best.status, calls, depth, best.chain)

		if best.status < 300 && strings.HasPrefix(s.route, "GET ") && !s.writes && authRoutes[s.route] == httpapi.AuthBearer && best.depth > maxAuthenticatedReadDepth {
			t.Errorf("%s: depth %d in every run, target at most %d for an authenticated read", s.route, best.depth, maxAuthenticatedReadDepth)
		}
		if s.route == "GET /v1/users/me" && best.status == 200 && best.depth != usersMeDepth {
			t.Errorf("GET /v1/users/me: depth %d in every run, target %d", best.depth, usersMeDepth)
		}
	}
	fmt.Fprintf(&table, "   depth: fewest sequential round trips in %d runs on fresh tables; (n): the most seen, when a late goroutine made concurrent calls look sequential\n", callRuns)
	t.Logf("DynamoDB calls per request:\n%s", table.String())
	if *callsOut != "" {
		if err := os.WriteFile(*callsOut, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runScenario runs every step once on a fresh environment: a new table
// (so rate-limit windows start empty) and the app wired a second time
// over it, with one more SDK middleware that notes each operation's name.
// The access log carries only counts; the names make the table
// actionable. Steps run one at a time, so every call noted during a step
// belongs to it.
func runScenario(t *testing.T, steps []step, used map[string]map[string]bool) []observation {
	t.Helper()
	env := testenv.New(t)
	logs := newAccessLog()
	ops := &opLog{}
	awsCfg := env.AWS.Copy()
	awsCfg.APIOptions = append(slices.Clone(awsCfg.APIOptions), ops.middleware)
	a := app.New(env.Config, app.NewClients(awsCfg), slog.New(slog.NewJSONHandler(logs, nil)), nil)
	a.DNS = env.DNS // before the router is built: the DNS stand-in the scenario sets records in
	requests := &requestCalls{}
	srv := httptest.NewServer(requests.wrap(devserver.Handler(a, groups.All(a.Deps()))))
	defer srv.Close()
	c := &client{base: srv.URL, http: srv.Client()}

	var out []observation
	bookIDs := seedBenchCatalog(t, a)
	st := &scenarioState{bookID: bookIDs[0], book2ID: bookIDs[2], setCNAME: env.DNS.SetCNAME, promote: func(id string) error {
		_, err := a.Users.SetTier(t.Context(), id, users.TierPremium)
		return err
	}}
	st.sellerID, st.sellerToken = seedBookseller(t, a)
	for _, s := range steps {
		if s.before != nil {
			if err := s.before(st); err != nil {
				t.Fatalf("%s (%s): arrange: %v", s.route, s.note, err)
			}
		}
		ops.reset()
		requests.actions() // the arrangement's calls are no step's
		res := s.do(c, st)
		rec, ok := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second)
		if !ok {
			t.Fatalf("%s: no access-log record for request id %q (HTTP %d)", s.route, res.Header.Get("X-Request-Id"), res.Status)
		}
		noted := ops.take()
		actions := requests.actions()
		if f := checkGranted(t, s.route, actions); f != "" {
			if used[f] == nil {
				used[f] = map[string]bool{}
			}
			for _, a := range actions {
				used[f][a] = true
			}
		}
		dynamoCalls := 0
		for _, c := range noted {
			if c.Service == "dynamodb" {
				dynamoCalls++
			}
		}
		if rec.Route != s.route {
			t.Errorf("%s (%s): the router matched %q", s.route, s.note, rec.Route)
		}
		if res.Status != s.want {
			t.Errorf("%s (%s): HTTP %d, want %d: %s", s.route, s.note, res.Status, s.want, res.Body)
		}
		if dynamoCalls != rec.Calls {
			t.Errorf("%s (%s): access log counts %d DynamoDB calls, the SDK saw %d", s.route, s.note, rec.Calls, dynamoCalls)
		}
		out = append(out, observation{status: res.Status, calls: rec.Calls, depth: rec.Depth, chain: chain(noted)})
	}
	return out
}

// benchCatalog is the handful of books the scenario's catalog steps read,
// imported before the first step (the import is not a route, so its calls
// are not part of any step).
var benchCatalog = []books.Record{
	{ISBN: "0-306-40615-2", Title: "Harry Potter", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780439785969", Title: "Harry Potter and the Philosopher's Stone", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780261103573", Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
}

// seedBookseller signs up the scenario's bookseller, of the bookstore
// tier (no route changes a tier), before the first step.
func seedBookseller(t *testing.T, a *app.App) (id, token string) {
	t.Helper()
	res, err := a.Users.Signup(t.Context(), users.SignupInput{
		Username: "bench_seller", Email: "bench.seller@example.com", Password: password, DisplayName: "Bench Seller",
	})
	if err != nil {
		t.Fatalf("bookseller: %v", err)
	}
	if _, err := a.Users.SetTier(t.Context(), res.User.ID, users.TierBookstore); err != nil {
		t.Fatalf("bookseller tier: %v", err)
	}
	return res.User.ID, res.AccessToken
}

// seedBenchCatalog imports benchCatalog and returns the ids of its books,
// in its order.
func seedBenchCatalog(t *testing.T, a *app.App) []string {
	t.Helper()
	res, err := a.Books.Import(t.Context(), benchCatalog)
	if err != nil || res.Failed > 0 {
		t.Fatalf("import bench catalog: %v %+v", err, res.Errors)
	}
	ids := make([]string, len(benchCatalog))
	for i, rec := range benchCatalog {
		b, err := a.Books.GetByISBN(t.Context(), rec.ISBN)
		if err != nil {
			t.Fatalf("bench catalog: %v", err)
		}
		ids[i] = b.ID
	}
	return ids
}

// client sends the scenario's requests to the bench's own server.
type client struct {
	base string
	http *http.Client
	// idempotencyKey, when set, is sent as the Idempotency-Key header.
	idempotencyKey string
}

// keyed is the client sending an Idempotency-Key.
func (c *client) keyed(key string) *client {
	k := *c
	k.idempotencyKey = key
	return &k
}

// response is what the client saw; JSON is the body decoded as an object.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// do sends body as JSON (nil: no body) with an optional Bearer token.
func (c *client) do(method, path string, body any, token string) *response {
	var rd io.Reader
	ctype := ""
	if body != nil {
		data, _ := json.Marshal(body)
		rd, ctype = bytes.NewReader(data), "application/json"
	}
	return c.raw(method, path, ctype, rd, token)
}

func (c *client) raw(method, path, ctype string, body io.Reader, token string) *response {
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return &response{Body: []byte(err.Error())}
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if c.idempotencyKey != "" {
		req.Header.Set(httpapi.IdempotencyHeader, c.idempotencyKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &response{Header: http.Header{}, Body: []byte(err.Error())}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	r := &response{Status: resp.StatusCode, Header: resp.Header, Body: data}
	_ = json.Unmarshal(data, &r.JSON)
	return r
}

// opLog notes every AWS operation (DynamoDB, S3) with its start and end.
type opLog struct {
	mu    sync.Mutex
	calls []callstats.Call
}

func (l *opLog) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("BenchOpLog",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			start := time.Now()
			out, md, err := next.HandleInitialize(ctx, in)
			c := callstats.Call{Service: "dynamodb", Operation: middleware.GetOperationName(ctx), Start: start, End: time.Now()}
			if id := awsmiddleware.GetServiceID(ctx); id != dynamodb.ServiceID {
				// Other services' calls stay in the chain, named as such:
				// they are round trips too.
				c.Service, c.Operation = id, id+":"+c.Operation
			}
			l.mu.Lock()
			l.calls = append(l.calls, c)
			l.mu.Unlock()
			return out, md, err
		}), middleware.After)
}

func (l *opLog) reset() {
	l.mu.Lock()
	l.calls = nil
	l.mu.Unlock()
}

func (l *opLog) take() []callstats.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// chain writes the calls by level of sequential depth, the same measure
// callstats uses: calls on one level ran side by side.
func chain(calls []callstats.Call) string {
	if len(calls) == 0 {
		return "-"
	}
	slices.SortFunc(calls, func(a, b callstats.Call) int { return a.Start.Compare(b.Start) })
	level := make([]int, len(calls))
	var levels [][]string
	for i, c := range calls {
		level[i] = 0
		for j := range i {
			if !calls[j].End.After(c.Start) && level[j]+1 > level[i] {
				level[i] = level[j] + 1
			}
		}
		for len(levels) <= level[i] {
			levels = append(levels, nil)
		}
		levels[level[i]] = append(levels[level[i]], c.Operation)
	}
	parts := make([]string, len(levels))
	for i, names := range levels {
		slices.Sort(names)
		parts[i] = strings.Join(names, "+")
	}
	return strings.Join(parts, " -> ")
}

// avatarUpload is a multipart body with a small real PNG in field avatar.
func avatarUpload() (*bytes.Buffer, string) { return imageUpload("avatar") }

// putUpload PUTs a small PNG to a presigned upload slot, as a client
// does (straight to object storage: no route, no call of the API's).
func putUpload(slot map[string]any) {
	url, _ := slot["uploadUrl"].(string)
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(smallPNG()))
	if err != nil {
		return
	}
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
	}
}

// imageUpload is a multipart body with a small real PNG in field.
func imageUpload(field string) (*bytes.Buffer, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile(field, field+".png")
	_, _ = part.Write(smallPNG())
	_ = mw.Close()
	return &body, mw.FormDataContentType()
}

// smallPNG is a 16x16 PNG of about 1 KB.
func smallPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := range 16 {
		for y := range 16 {
			img.Set(x, y, color.RGBA{R: uint8(x * 16), G: uint8(y * 16), B: 128, A: 255})
		}
	}
	var pngData bytes.Buffer
	_ = png.Encode(&pngData, img)
	return pngData.Bytes()
}

// accessRecord is what the router logs per request (shared/httpapi).
type accessRecord struct {
	Msg       string `json:"msg"`
	RequestID string `json:"requestId"`
	Route     string `json:"route"`
	Status    int    `json:"status"`
	Calls     int    `json:"dynamoCalls"`
	Depth     int    `json:"dynamoDepth"`
}

// accessLog collects the router's "request" records by request id. The
// record is written when the handler returns, which can be a moment after
// the client has the answer, hence wait.
type accessLog struct {
	mu      sync.Mutex
	cond    *sync.Cond
	records map[string]accessRecord
}

func newAccessLog() *accessLog {
	l := &accessLog{records: map[string]accessRecord{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// Write takes one JSON record per call, as slog's JSON handler writes them.
func (l *accessLog) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		var rec accessRecord
		if json.Unmarshal(line, &rec) != nil || rec.Msg != "request" || rec.RequestID == "" {
			continue
		}
		l.mu.Lock()
		l.records[rec.RequestID] = rec
		l.cond.Broadcast()
		l.mu.Unlock()
	}
	return len(p), nil
}

func (l *accessLog) wait(id string, timeout time.Duration) (accessRecord, bool) {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer timer.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		if rec, ok := l.records[id]; ok {
			return rec, true
		}
		if id == "" || time.Now().After(deadline) {
			return accessRecord{}, false
		}
		l.cond.Wait()
	}
}

// checkGranted fails when a step made an AWS call that needs an IAM
// action the function serving its route in AWS is not granted
// (groups.Functions is what CDK grants), so a new call cannot pass
// locally and fail with AccessDenied in AWS. The actions are those the
// call recorder noted for each call (callstats, by the rules of
// shared/dynamo and shared/s3media: a transaction by each of its parts, a
// copy as a read and a write). It returns the function's name.
func checkGranted(t *testing.T, route string, actions []string) string {
	t.Helper()
	f, ok := functionOf(route)
	if !ok {
		t.Errorf("%s: no function serves this route", route)
		return ""
	}
	granted := granted(f)
	for _, a := range actions {
		if !granted[a] {
			t.Errorf("%s: needs %s, which function %s is not granted (shared/groups/functions.go, its group's routes.go)", route, a, f.Name)
		}
	}
	return f.Name
}

// checkUsed fails when a function is granted a table, media or CDN
// action that no step of the scenario served by it needed in any run:
// a grant nothing calls is a permission an attacker gets for free.
func checkUsed(t *testing.T, used map[string]map[string]bool) {
	t.Helper()
	for _, f := range groups.Functions() {
		if len(f.Routes) == 0 {
			continue // the authorizer and the rotation function: no step
		}
		for a := range granted(f) {
			if !used[f.Name][a] {
				t.Errorf("function %s is granted %s, which no step of the scenario needed: remove the grant, or add the step that needs it", f.Name, a)
			}
		}
	}
}

// granted are a function's table, media and CDN actions.
func granted(f groups.Function) map[string]bool {
	out := map[string]bool{}
	for _, list := range [][]string{f.TableActions, f.MediaActions, f.CDNActions} {
		for _, a := range list {
			out[a] = true
		}
	}
	return out
}

// functionOf is the function serving a route ("METHOD /pattern").
func functionOf(route string) (groups.Function, bool) {
	for _, f := range groups.Functions() {
		for _, r := range f.Routes {
			if r.Method+" "+r.Path == route {
				return f, true
			}
		}
	}
	return groups.Function{}, false
}

// requestCalls hands each request the router serves a recorder of the
// bench's own, made in the request's context before the router makes its
// own: the router's recorder passes every call on to it (callstats.With),
// so the bench reads the actions the service recorded, not a list of its
// own.
type requestCalls struct {
	mu   sync.Mutex
	recs []*callstats.Recorder
}

func (c *requestCalls) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, rec := callstats.With(r.Context())
		c.mu.Lock()
		c.recs = append(c.recs, rec)
		c.mu.Unlock()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// actions are the IAM actions of the requests since the last call.
func (c *requestCalls) actions() []string {
	c.mu.Lock()
	recs := c.recs
	c.recs = nil
	c.mu.Unlock()
	var out []string
	for _, r := range recs {
		out = append(out, r.Actions()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
