package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// knownRereads are the items a request of the cost mix reads twice on
// purpose, by route, with why: each second read answers what the first
// did not read (the router's store header reads only the store's id,
// slug and owner) or what changed in between. The test fails when one of
// them stops happening too, so that the list stays true.
var knownRereads = map[string]string{
	// The like's transaction changed the line's likeCount, which a
	// transaction cannot return: the answer's count is read after it
	// (likeStore.change), as the visibility check read the line before.
	"POST /v1/lines/{id}/like ()": "LINE",
	// Inventory.List reads the store's inventoryCount and inStockCount
	// (the page's total); the router's role check read its header.
	"GET /v1/inventory (a page)": "STORE",
	// POS.Sell reads the store (its tax rate, whether it is being
	// deleted) in its consistent batch, again on every retry.
	"POST /api/pos/sales (a custom item, cash)": "STORE",
}

// ownViews are requests of the mix's routes by the account that wrote
// what they show (run after the mix, in which the reader posted a line
// on the book): every author, or one of a page, is the caller.
var ownViews = []mixRequest{
	{"GET /v1/lines/{id}", "by its author", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
		return c.Do("GET", "/v1/lines/"+s.lineID, nil, s.posters[0].Token)
	}},
	{"GET /v1/users/{username}/lines", "their own", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
		return c.Do("GET", "/v1/users/"+s.posters[0].Username+"/lines", nil, s.posters[0].Token)
	}},
	{"GET /v1/books/{id}/lines", "the reader's among them", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
		return c.Do("GET", "/v1/books/"+s.bookID+"/lines", nil, s.reader.Token)
	}},
	{"GET /v1/books/{id}/reviews", "a poster's among them", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
		return c.Do("GET", "/v1/books/"+s.bookID+"/reviews", nil, s.posters[4].Token)
	}},
}

// TestCostMixReadsNoItemTwice runs the cost mix once, then ownViews, and
// fails when a request reads an item (GetItem, BatchGetItem,
// TransactGetItems) that another read of the same request already read:
// a read whose answer the request had. The caller's account, which the
// router reads for every signed-in request, is the usual one
// (httpapi.CallerOf(r).User() has it).
func TestCostMixReadsNoItemTwice(t *testing.T) {
	reads := &keyReads{}
	env := testenv.New(t, testenv.WithAPIOptions(reads.middleware))
	srv := httptest.NewServer(env.Handler())
	defer srv.Close()
	c := &apitest.Client{Base: srv.URL, HTTP: srv.Client()}
	st := seedCostMix(t, env)
	classes := append(slices.Clone(costMix), mixClass{"own views", 0, ownViews})
	for _, class := range classes {
		for _, r := range class.requests {
			name := fmt.Sprintf("%s (%s)", r.route, r.note)
			reads.reset()
			res := r.do(c, st)
			if res.Status != r.want {
				t.Errorf("%s: HTTP %d, want %d: %s", name, res.Status, r.want, res.Body)
				continue
			}
			var twice []string
			for k, n := range reads.take() {
				if n > 1 {
					twice = append(twice, k.sk)
				}
			}
			sort.Strings(twice)
			if want, ok := knownRereads[name]; ok {
				assert.Equal(t, []string{want}, twice, "%s: the items read twice", name)
				continue
			}
			assert.Empty(t, twice, "%s reads these items (by sort key) twice", name)
		}
	}

	// The caller's record is put back on the handler's goroutine
	// (posts.Known.Add): a refused early GET stops its handler there, by
	// a panic that goroutine alone recovers. Refused here, the reader's
	// own club, wishlist and lines are answered 403, and nothing crashes.
	res := c.Do("POST", "/v1/admin/users/"+st.reader.ID+"/suspend", map[string]any{"reason": "Spam."}, st.operator.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Body)
	for _, path := range []string{"/v1/clubs", "/v1/clubs/" + st.clubID, "/v1/clubs/" + st.clubID + "/lines",
		"/v1/wishlists/" + st.wishlistID, "/v1/books/" + st.bookID + "/lines", "/v1/books/" + st.bookID + "/reviews"} {
		res := c.Do("GET", path, nil, st.reader.Token)
		assert.Equal(t, http.StatusForbidden, res.Status, "%s: %s", path, res.Body)
	}
}

// itemKey is a read item's key.
type itemKey struct{ pk, sk string }

// keyReads counts, per item, the reads of it since the last reset.
type keyReads struct {
	mu sync.Mutex
	n  map[itemKey]int
}

func (k *keyReads) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("BenchKeyReads",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			var keys []map[string]types.AttributeValue
			switch p := in.Parameters.(type) {
			case *dynamodb.GetItemInput:
				keys = append(keys, p.Key)
			case *dynamodb.BatchGetItemInput:
				for _, ka := range p.RequestItems {
					keys = append(keys, ka.Keys...)
				}
			case *dynamodb.TransactGetItemsInput:
				for _, it := range p.TransactItems {
					if it.Get != nil {
						keys = append(keys, it.Get.Key)
					}
				}
			}
			k.mu.Lock()
			if k.n == nil {
				k.n = map[itemKey]int{}
			}
			for _, key := range keys {
				k.n[itemKey{str(key["PK"]), str(key["SK"])}]++
			}
			k.mu.Unlock()
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func (k *keyReads) reset() {
	k.mu.Lock()
	k.n = nil
	k.mu.Unlock()
}

func (k *keyReads) take() map[itemKey]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := k.n
	k.n = nil
	return out
}
