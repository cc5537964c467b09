package wishlistsapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shop creates a store owned by a new bookstore-tier account and returns
// the owner and the store's id.
func shop(t *testing.T, env *testenv.Env, slug string) (testenv.Account, string) {
	t.Helper()
	owner := env.Signup(t, strings.ReplaceAll(slug, "-", "_")+"_owner")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "Shop " + slug, "slug": slug, "description": "Books.",
		"addressLine1": "1005 W Burnside St", "city": "Portland", "state": "OR", "postalCode": "97209", "country": "US",
	}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return owner, res.JSON["id"].(string)
}

// setHome makes storeID a's home store ("" clears it).
func setHome(t *testing.T, env *testenv.Env, a testenv.Account, storeID string) {
	t.Helper()
	res := env.Do("DELETE", "/v1/users/me/home-store", nil, a.Token)
	if storeID != "" {
		res = env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": storeID}, a.Token)
	}
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
}

// wishlistOf creates a wishlist of a's and returns its id.
func wishlistOf(t *testing.T, env *testenv.Env, a testenv.Account) string {
	t.Helper()
	res := env.Do("POST", "/v1/wishlists", map[string]any{"name": "Wants"}, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON["id"].(string)
}

func wish(t *testing.T, env *testenv.Env, a testenv.Account, wishlistID, bookID string) {
	t.Helper()
	res := env.Do("POST", "/v1/wishlists/"+wishlistID+"/items", map[string]any{"bookId": bookID}, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
}

func unwish(t *testing.T, env *testenv.Env, a testenv.Account, wishlistID, bookID string) {
	t.Helper()
	res := env.Do("DELETE", "/v1/wishlists/"+wishlistID+"/items/"+bookID, nil, a.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
}

// demand is storeID's stored count of bookID (0: no counter).
func demand(t *testing.T, env *testenv.Env, storeID, bookID string) int {
	t.Helper()
	it := env.Item(t, dynamo.StoreDemandKey(storeID, bookID))
	if it == nil {
		return 0
	}
	n, ok := it["wishCount"].(float64)
	require.True(t, ok, "%v", it)
	require.Positive(t, n, "a counter at 0 is deleted")
	return int(n)
}

// A store's count of a book is the number of readers whose home store it
// is with the book on at least one wishlist: kept as entries come and
// go, as wishlists are deleted, and as readers change home store.
func TestDemand_Counts(t *testing.T) {
	w := newWorld(t)
	env := w.Env
	a, b := w.books[0], w.books[1]
	_, shopID := shop(t, env, "demand-shop")
	_, otherID := shop(t, env, "demand-other")

	r1 := env.Signup(t, "demand_r1")
	env.SetTier(t, r1, users.TierPremium) // two wishlists
	r2, r3 := env.Signup(t, "demand_r2"), env.Signup(t, "demand_r3")
	homeless, elsewhere := env.Signup(t, "demand_homeless"), env.Signup(t, "demand_elsewhere")
	for _, r := range []testenv.Account{r1, r2, r3} {
		setHome(t, env, r, shopID)
	}
	setHome(t, env, elsewhere, otherID)

	r1a, r1b := wishlistOf(t, env, r1), wishlistOf(t, env, r1)
	r2a, r3a := wishlistOf(t, env, r2), wishlistOf(t, env, r3)
	wish(t, env, r1, r1a, a)
	wish(t, env, r1, r1b, a) // the same reader again: still one
	wish(t, env, r1, r1a, b)
	wish(t, env, r2, r2a, a)
	wish(t, env, r2, r2a, b)
	wish(t, env, r3, r3a, a)
	wish(t, env, homeless, wishlistOf(t, env, homeless), a)
	wish(t, env, elsewhere, wishlistOf(t, env, elsewhere), a)

	assert.Equal(t, 3, demand(t, env, shopID, a), "r1 once, r2, r3; not the reader without a home store")
	assert.Equal(t, 2, demand(t, env, shopID, b))
	assert.Equal(t, 1, demand(t, env, otherID, a), "each reader counts at their own home store")
	assert.EqualValues(t, 2, env.Item(t, dynamo.WishKey(r1.ID, a))["entryCount"])

	t.Run("a refused addition counts nothing", func(t *testing.T) {
		res := env.Do("POST", "/v1/wishlists/"+r1a+"/items", map[string]any{"bookId": a}, r1.Token)
		require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
		res = env.Do("POST", "/v1/wishlists/"+r1a+"/items", map[string]any{"bookId": a}, r2.Token)
		require.Equal(t, http.StatusForbidden, res.Status, "%s", res)
		assert.Equal(t, 3, demand(t, env, shopID, a))
	})
	t.Run("a reader counts until their last entry of the book goes", func(t *testing.T) {
		unwish(t, env, r1, r1a, a)
		assert.Equal(t, 3, demand(t, env, shopID, a))
		unwish(t, env, r1, r1b, a)
		assert.Equal(t, 2, demand(t, env, shopID, a))
		assert.Nil(t, env.Item(t, dynamo.WishKey(r1.ID, a)))
	})
	t.Run("deleting a wishlist takes its books' counts", func(t *testing.T) {
		require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/wishlists/"+r2a, nil, r2.Token).Status)
		assert.Equal(t, 1, demand(t, env, shopID, a))
		assert.Equal(t, 1, demand(t, env, shopID, b))
	})
	t.Run("a new home store takes the reader's wishes with it", func(t *testing.T) {
		setHome(t, env, r3, otherID)
		assert.Equal(t, 0, demand(t, env, shopID, a), "the counter at 0 is gone")
		assert.Equal(t, 2, demand(t, env, otherID, a))
		setHome(t, env, r3, otherID) // the same store again changes nothing
		assert.Equal(t, 2, demand(t, env, otherID, a))
		setHome(t, env, r3, "")
		assert.Equal(t, 1, demand(t, env, otherID, a), "no home store, counted nowhere")
		setHome(t, env, r3, shopID)
		assert.Equal(t, 1, demand(t, env, shopID, a))
	})
	t.Run("clearing again finishes a move a failure cut short", func(t *testing.T) {
		r := env.Signup(t, "demand_cut_r")
		setHome(t, env, r, shopID)
		wish(t, env, r, wishlistOf(t, env, r), b)
		require.Equal(t, 2, demand(t, env, shopID, b))
		// The clear's own transaction committed, its move did not.
		u := env.Item(t, dynamo.UserKey(r.ID))
		delete(u, "homeStoreId")
		env.PutItem(t, u)
		env.DeleteItem(t, dynamo.HomeOfKey(shopID, r.ID))
		require.Equal(t, 2, demand(t, env, shopID, b))
		setHome(t, env, r, "")
		assert.Equal(t, 1, demand(t, env, shopID, b), "the reader without a home store counts nowhere")
	})
	t.Run("deleting the store deletes its counts", func(t *testing.T) {
		owner, goneID := shop(t, env, "demand-gone")
		r := env.Signup(t, "demand_gone_r")
		setHome(t, env, r, goneID)
		wl := wishlistOf(t, env, r)
		wish(t, env, r, wl, a)
		require.Equal(t, 1, demand(t, env, goneID, a))
		require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/stores/demand-gone", nil, owner.Token).Status)
		assert.Equal(t, 0, demand(t, env, goneID, a))
		unwish(t, env, r, wl, a)
		assert.Nil(t, env.Item(t, dynamo.StoreDemandKey(goneID, a)), "taking the wish back writes no counter of a store that is gone")
	})
}

// Many readers of one store wishing for one book at once, taking it back
// at once, and moving home stores at once keep the count exact.
func TestDemand_ExactUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	env := w.Env
	book := w.books[2]
	_, shopID := shop(t, env, "busy-shop")
	_, otherID := shop(t, env, "busy-other")
	const n = 12
	readers := make([]testenv.Account, n)
	lists := make([]string, n)
	for i := range readers {
		readers[i] = env.Signup(t, fmt.Sprintf("busy_reader_%d", i))
		setHome(t, env, readers[i], shopID)
		lists[i] = wishlistOf(t, env, readers[i])
	}

	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			res := env.Do("POST", "/v1/wishlists/"+lists[i]+"/items", map[string]any{"bookId": book}, readers[i].Token)
			assert.Equal(t, http.StatusCreated, res.Status, "%s", res)
		})
	}
	wg.Wait()
	require.Equal(t, n, demand(t, env, shopID, book))

	// A third take the book back, a third move to the other store, at once.
	for i := range readers[:2*n/3] {
		wg.Go(func() {
			if i%2 == 0 {
				res := env.Do("DELETE", "/v1/wishlists/"+lists[i]+"/items/"+book, nil, readers[i].Token)
				assert.Equal(t, http.StatusOK, res.Status, "%s", res)
				return
			}
			res := env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": otherID}, readers[i].Token)
			assert.Equal(t, http.StatusOK, res.Status, "%s", res)
		})
	}
	wg.Wait()
	assert.Equal(t, n-2*n/3, demand(t, env, shopID, book))
	assert.Equal(t, n/3, demand(t, env, otherID, book))
}

// GET /v1/stores/{slug}/wishlist-demand: the owner's ranking, in the
// spec's snake_case, with the store's stock of each book; staff, other
// accounts and anonymous callers are refused.
func TestDemand_Endpoint(t *testing.T) {
	w := newWorld(t)
	env := w.Env
	owner, shopID := shop(t, env, "demand-read")
	_, otherID := shop(t, env, "demand-read-other")
	clerk, stranger := env.Signup(t, "demand_clerk"), env.Signup(t, "demand_stranger")
	require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/stores/demand-read/staff", map[string]any{"userId": clerk.ID}, owner.Token).Status)

	// Three readers want books[0], two books[1], one books[2]; readers of
	// another store want books[3].
	wants := [][]int{{0, 1, 2}, {0, 1}, {0}}
	for i, bs := range wants {
		r := env.Signup(t, fmt.Sprintf("demand_read_%d", i))
		setHome(t, env, r, shopID)
		wl := wishlistOf(t, env, r)
		for _, b := range bs {
			wish(t, env, r, wl, w.books[b])
		}
	}
	far := env.Signup(t, "demand_read_far")
	setHome(t, env, far, otherID)
	wish(t, env, far, wishlistOf(t, env, far), w.books[3])

	// The store stocks books[0] (4 copies) and books[1] (sold out).
	stock := dynamo.NewInventory(env.App.Table)
	for b, qty := range map[int]int{0: 4, 1: 0} {
		_, err := stock.Set(t.Context(), shopID, inventory.Stock{BookID: w.books[b], Quantity: qty, PriceCents: 1299, Condition: inventory.New},
			inventory.Cause{Kind: inventory.CauseImport, UserID: owner.ID, Reason: "test"})
		require.NoError(t, err)
	}

	res := env.Do("GET", "/v1/stores/demand-read/wishlist-demand", nil, owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	got := res.JSON["books"].([]any)
	require.Len(t, got, 3, "the other store's readers do not count here")
	first := got[0].(map[string]any)
	assert.Equal(t, map[string]any{
		"book_id": w.books[0], "title": catalog[0].Title, "authors": []any{"J. K. Rowling"}, "wishlist_count": float64(3),
		"inventory_status": map[string]any{"quantity": float64(4), "in_stock": true},
	}, first)
	second, third := got[1].(map[string]any), got[2].(map[string]any)
	assert.Equal(t, w.books[1], second["book_id"])
	assert.EqualValues(t, 2, second["wishlist_count"])
	assert.Equal(t, map[string]any{"quantity": float64(0), "in_stock": false}, second["inventory_status"], "sold out")
	assert.Equal(t, w.books[2], third["book_id"])
	assert.EqualValues(t, 1, third["wishlist_count"])
	assert.Equal(t, map[string]any{"quantity": float64(0), "in_stock": false}, third["inventory_status"], "not carried")
	assert.Equal(t, false, res.JSON["hasMore"])
	assert.NotContains(t, res.String(), "demand_read_", "who wished is never shown")

	t.Run("pages", func(t *testing.T) {
		res := env.Do("GET", "/v1/stores/demand-read/wishlist-demand?limit=2", nil, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		require.Len(t, res.JSON["books"], 2)
		require.Equal(t, true, res.JSON["hasMore"])
		next := env.Do("GET", "/v1/stores/demand-read/wishlist-demand?limit=2&cursor="+res.JSON["nextCursor"].(string), nil, owner.Token)
		require.Equal(t, http.StatusOK, next.Status, "%s", next)
		require.Len(t, next.JSON["books"], 1)
		assert.Equal(t, w.books[2], next.JSON["books"].([]any)[0].(map[string]any)["book_id"])
		testenv.AssertError(t, env.Do("GET", "/v1/stores/demand-read/wishlist-demand?limit=0", nil, owner.Token), http.StatusBadRequest, "ValidationError", "")
	})
	t.Run("roles", func(t *testing.T) {
		testenv.AssertError(t, env.Do("GET", "/v1/stores/demand-read/wishlist-demand", nil, clerk.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/demand-read/wishlist-demand", nil, stranger.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/demand-read/wishlist-demand", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/no-such-shop/wishlist-demand", nil, owner.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("a store without wishes", func(t *testing.T) {
		o2, _ := shop(t, env, "demand-quiet")
		res := env.Do("GET", "/v1/stores/demand-quiet/wishlist-demand", nil, o2.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, []any{}, res.JSON["books"])
	})
}
